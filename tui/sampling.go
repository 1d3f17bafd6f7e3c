package tui

import (
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/tui/sample"
)

// newSamplingScreen builds the answer screen of a sampling request (tui/sample): it
// sits in the inbox like a form and answers through the same reply channel.
func newSamplingScreen(req *elicit.Request, o ScreenOptions) FormScreen {
	return sample.New(req, sample.Options{Width: o.Width, Height: o.Height, NoColor: o.NoColor})
}
