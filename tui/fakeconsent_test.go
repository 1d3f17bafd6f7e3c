package tui

import (
	"net/url"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/tui/consent"
)

// localConsent is a stand-in URL consent screen for model tests: o opens, c copies, d declines, esc cancels.
type localConsent struct {
	req    *elicit.Request
	choice consent.Choice
	w, h   int
	st     styles
}

func newLocalConsent(req *elicit.Request, o ScreenOptions) *localConsent {
	return &localConsent{req: req, w: o.Width, h: o.Height, st: newStyles(o.NoColor)}
}

// Init implements ConsentScreen.
func (c *localConsent) Init() tea.Cmd { return nil }

// SetSize implements ConsentScreen.
func (c *localConsent) SetSize(w, h int) { c.w, c.h = w, h }

// Done implements ConsentScreen.
func (c *localConsent) Done() (consent.Choice, bool) { return c.choice, c.choice != 0 }

// Update implements ConsentScreen.
func (c *localConsent) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok || c.choice != 0 {
		return nil
	}
	switch k.String() {
	case "o":
		c.choice = consent.Open
	case "c":
		c.choice = consent.CopyOnly
		return tea.SetClipboard(c.req.URL)
	case "d":
		c.choice = consent.Decline
	case "esc":
		c.choice = consent.Cancel
	}
	return nil
}

// View implements ConsentScreen.
func (c *localConsent) View() string {
	var lines []string
	lines = append(lines, c.st.Title.Render(trunc(safe.Block(c.req.Server)+" asks you to open a URL", c.w)))
	lines = append(lines, wrapWords(safe.Block(c.req.Message), c.w)...)
	lines = append(lines, "")
	raw := safe.Block(c.req.URL)
	u, err := url.Parse(c.req.URL)
	switch {
	case err != nil || u.Host == "":
		lines = append(lines, c.st.Err.Render("✗ not a usable URL"), raw)
	default:
		host := u.Hostname()
		lines = append(lines, "host: "+c.st.Host.Render(host))
		// Wrap the plain URL first, then highlight the host where a line holds it whole.
		for _, l := range strings.Split(wrapText(raw, c.w), "\n") {
			if i := strings.Index(l, host); i >= 0 && host != "" {
				l = l[:i] + c.st.Host.Render(host) + l[i+len(host):]
			}
			lines = append(lines, l)
		}
		if u.Scheme != "https" {
			lines = append(lines, c.st.Warn.Render("⚠ not https"))
		}
		if u.User != nil {
			lines = append(lines, c.st.Warn.Render("⚠ the URL carries a user name"))
		}
	}
	lines = append(lines, "", c.st.Dim.Render(trunc("o open · c copy · d decline · esc cancel · ctrl+b set aside", c.w)))
	return strings.Join(lines, "\n")
}
