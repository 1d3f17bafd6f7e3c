package tui

import (
	tea "charm.land/bubbletea/v2"
	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/elicit/consent"
	"github.com/elicitty/elicitty/elicit/ui"
	"github.com/elicitty/elicitty/elicit/urlsafe"
)

// uiForm adapts elicit/ui's FormModel to FormScreen.
type uiForm struct{ m *ui.FormModel }

func newUIForm(req *elicit.Request, f *elicit.Form, o ScreenOptions) FormScreen {
	return &uiForm{ui.NewFormModel(req, f, ui.FormOptions{Width: o.Width, Height: o.Height, Accessible: o.Accessible, NoColor: o.NoColor})}
}

func (u *uiForm) Init() tea.Cmd                    { return u.m.Init() }
func (u *uiForm) View() string                     { return u.m.View() }
func (u *uiForm) SetSize(w, h int)                 { u.m.SetSize(w, h) }
func (u *uiForm) Done() (elicit.Response, bool)    { return u.m.Done() }
func (u *uiForm) Update(msg tea.Msg) (cmd tea.Cmd) { u.m, cmd = u.m.Update(msg); return cmd }

// consentScreen adapts elicit/consent's Model to ConsentScreen.
type consentScreen struct{ m *consent.Model }

// newConsentScreen builds the consent screen for req under its server's URL policy.
func newConsentScreen(req *elicit.Request, pol config.URLPolicy, o ScreenOptions) ConsentScreen {
	a := urlsafe.Analyze(req.URL, urlsafe.Policy{AllowedHosts: pol.AllowedHosts, HTTPSOnly: pol.HTTPSOnly, AllowHTTPRemote: true})
	return &consentScreen{consent.New(req, a, consent.Options{Width: o.Width, Height: o.Height, NoColor: o.NoColor,
		OpenAllowed: pol.Open != config.URLCopyOnly})}
}

func (c *consentScreen) Init() tea.Cmd                    { return c.m.Init() }
func (c *consentScreen) View() string                     { return c.m.View() }
func (c *consentScreen) SetSize(w, h int)                 { c.m.SetSize(w, h) }
func (c *consentScreen) Update(msg tea.Msg) (cmd tea.Cmd) { c.m, cmd = c.m.Update(msg); return cmd }

// Done maps consent's choice onto ours.
func (c *consentScreen) Done() (Choice, bool) {
	ch, ok := c.m.Done()
	if !ok {
		return 0, false
	}
	switch ch {
	case consent.Open:
		return ChoiceOpen, true
	case consent.CopyOnly:
		return ChoiceCopyOnly, true
	case consent.Decline:
		return ChoiceDecline, true
	}
	return ChoiceCancel, true
}
