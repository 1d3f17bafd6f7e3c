package config

import (
	"strconv"

	"github.com/elicitty/elicitty/tree"
)

// Sampling is the top-level sampling: section of elicitty's own file.
type Sampling struct {
	// Command, when set, is run for every sampling request with the request's params
	// (JSON) on stdin; what it prints is the draft reply a person approves or edits.
	// ${VAR} is expanded in each word.
	Command []string `json:"command,omitempty" yaml:"command,omitempty"`
}

// sampling decodes the sampling: section.
func (d *fileDecoder) sampling(at tree.Location, n *tree.Node) *Sampling {
	if n.Kind == tree.KindNull {
		return nil
	}
	if n.Kind != tree.KindObject {
		d.errs = append(d.errs, d.errAt(at, "sampling", "must be an object with command, got "+kindName(n.Kind)))
		return nil
	}
	s := &Sampling{}
	for _, e := range members(n) {
		if e.key != "command" {
			d.errs = append(d.errs, d.errAt(e.at, "sampling."+e.key, "unknown key (want command)"))
			continue
		}
		if e.val.Kind != tree.KindArray || len(e.val.Items) == 0 {
			d.errs = append(d.errs, d.errAt(e.at, "sampling.command", "must be a non-empty list of strings (the program and its arguments)"))
			continue
		}
		for i, item := range e.val.Items {
			if item.Kind != tree.KindString {
				d.errs = append(d.errs, d.errAt(item.Loc, "sampling.command["+strconv.Itoa(i)+"]", "must be a string, got "+kindName(item.Kind)))
				continue
			}
			v, err := d.x.expand(item.Str)
			if err != nil {
				d.errs = append(d.errs, d.errAt(item.Loc, "sampling.command["+strconv.Itoa(i)+"]", err.Error()))
				continue
			}
			s.Command = append(s.Command, v)
		}
	}
	return s
}
