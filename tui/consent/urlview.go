package consent

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/elicitty/elicitty/elicit/urlsafe"
)

// urlStyles are the styles renderURL applies to the parts of a URL.
type urlStyles struct {
	Plain, Userinfo, Host, Registrable lipgloss.Style
}

// renderURL returns a's escaped URL wrapped at width cells, one string per line, with
// each part styled. Stripped of styles, the lines concatenate to a.Display.
func renderURL(a urlsafe.Analysis, width int, st urlStyles) []string {
	type seg struct {
		text string
		kind urlsafe.PartKind
	}
	var lines [][]seg
	var cur []seg
	cw := 0
	for _, p := range a.Parts {
		var b strings.Builder
		for _, r := range p.Text {
			w := ansi.StringWidth(string(r))
			if width > 0 && cw+w > width && cw > 0 {
				if b.Len() > 0 {
					cur = append(cur, seg{b.String(), p.Kind})
					b.Reset()
				}
				lines = append(lines, cur)
				cur, cw = nil, 0
			}
			b.WriteRune(r)
			cw += w
		}
		if b.Len() > 0 {
			cur = append(cur, seg{b.String(), p.Kind})
		}
	}
	if len(cur) > 0 || len(lines) == 0 {
		lines = append(lines, cur)
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		var b strings.Builder
		for _, s := range l {
			var style lipgloss.Style
			switch s.kind {
			case urlsafe.PartUserinfo:
				style = st.Userinfo
			case urlsafe.PartHost:
				style = st.Host
			case urlsafe.PartRegistrable:
				style = st.Registrable
			default:
				style = st.Plain
			}
			b.WriteString(style.Render(s.text))
		}
		out[i] = b.String()
	}
	return out
}

// hostLine returns a's real host with its registrable part styled, e.g.
// "accounts." + bold("example.com").
func hostLine(a urlsafe.Analysis, host, registrable lipgloss.Style) string {
	if a.Host == "" {
		return ""
	}
	if a.Registrable == "" || !strings.HasSuffix(a.Host, a.Registrable) {
		return registrable.Render(a.Host)
	}
	pre := strings.TrimSuffix(a.Host, a.Registrable)
	if pre == "" {
		return registrable.Render(a.Host)
	}
	return host.Render(pre) + registrable.Render(a.Registrable)
}
