package tui

import (
	"github.com/elicitty/elicitty/elicit"
	"github.com/elicitty/elicitty/tui/sampling"
)

// newSamplingScreen builds the answer screen of a sampling request (tui/sampling): it
// sits in the inbox like a form and answers through the same reply channel.
func newSamplingScreen(req *elicit.Request, o ScreenOptions) FormScreen {
	return sampling.New(req, sampling.Options{Width: o.Width, Height: o.Height, NoColor: o.NoColor})
}
