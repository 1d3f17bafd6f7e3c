package elicit

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/elicitty/elicitty/internal/boundedfile"
	"github.com/elicitty/elicitty/tree"
)

// kindSampling is the kind of an answers entry that answers sampling requests.
const kindSampling = "sampling"

// maxReplyFile bounds a reply file an answers entry names.
const maxReplyFile = 1 << 20

// reply reads the reply mapping of a sampling entry.
func (p entryParser) reply(v *tree.Node) (*ScriptReply, error) {
	if v.Kind != tree.KindObject {
		return nil, p.fail(v, "reply", "must be a mapping with text or file (and model), not %s", nodeKind(v))
	}
	r := &ScriptReply{}
	for i, k := range v.Keys {
		rv := v.Values[i]
		if !isScalar(rv) {
			return nil, p.fail(rv, "reply."+k, "must be a string, not %s", nodeKind(rv))
		}
		switch k {
		case "text":
			r.Text = rv.Str
		case "file":
			r.File = rv.Str
		case "model":
			r.Model = rv.Str
		default:
			return nil, &scriptError{name: p.name, line: v.KeyLocs[i].Line, entry: p.idx, field: "reply",
				msg: fmt.Sprintf("unknown key %q (want text, file or model)", k)}
		}
	}
	if (r.Text == "") == (r.File == "") {
		return nil, p.fail(v, "reply", "needs exactly one of text and file")
	}
	return r, nil
}

// checkSampling applies the rules of sampling entries: only they carry reply and
// approve, they carry no content, mode or fields, and an accept says what to send.
func (p entryParser) checkSampling(n *tree.Node, e ScriptEntry, contentNode *tree.Node) error {
	if e.Kind != kindSampling {
		if e.Reply != nil || e.Approve != "" {
			return p.fail(n, "reply", "reply and approve are for sampling entries (add kind: sampling)")
		}
		return nil
	}
	switch {
	case contentNode != nil:
		return p.fail(contentNode, "content", "a sampling entry replies with reply, not content")
	case e.Match.Mode != "" || len(e.Match.Fields) > 0:
		return p.fail(n, "match", "a sampling entry matches on server, tool and message only")
	case e.Action == Accept && e.Reply == nil && e.Approve != "auto":
		return p.fail(n, "reply", "a sampling accept needs reply (text or file), or approve: auto to send the sampling command's draft")
	case e.Action != Accept && e.Reply != nil:
		return p.fail(n, "reply", "only an accept carries a reply, this entry says %s", e.Action)
	}
	return nil
}

// anyGlob reports whether pattern matches the text of any message of s (nil: false).
func anyGlob(pattern string, s *Sampling) bool {
	if s == nil {
		return false
	}
	for _, t := range s.Texts() {
		if glob(pattern, t) {
			return true
		}
	}
	return false
}

// sample builds the scripted answer of a sampling request from entry e (index idx).
func (s *Script) sample(req *Request, e ScriptEntry, idx int) (Response, string, error) {
	resp := Response{Action: e.Action}
	if e.Action != Accept {
		return resp, "", nil
	}
	where := fmt.Sprintf("%s entry %d", s.name, idx+1)
	reply := SampleReply{}
	note := ""
	switch {
	case e.Reply != nil && e.Reply.File != "":
		text, err := readReply(s.name, e.Reply.File)
		if err != nil {
			return Response{}, "", fmt.Errorf("%s: %w", where, err)
		}
		reply.Text, note = text, "reply from "+e.Reply.File
	case e.Reply != nil:
		reply.Text = e.Reply.Text
	default: // approve: auto
		if req.Sampling == nil || req.Sampling.Draft == "" {
			why := "no sampling command is configured"
			if req.Sampling != nil && req.Sampling.DraftErr != "" {
				why = "the sampling command failed: " + req.Sampling.DraftErr
			}
			return Response{}, "", fmt.Errorf("%w: %s approves the sampling command's draft, but %s", ErrUnanswered, where, why)
		}
		reply.Text, note = req.Sampling.Draft, "the sampling command's draft, approved by approve: auto"
	}
	if e.Reply != nil {
		reply.Model = e.Reply.Model
	}
	resp.Sample = &reply
	return resp, note, nil
}

// readReply reads a reply file, relative to the answers file's directory.
func readReply(answers, name string) (string, error) {
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(filepath.Dir(answers), name)
	}
	b, err := boundedfile.Read(path, maxReplyFile)
	if errors.Is(err, boundedfile.ErrTooLarge) {
		return "", fmt.Errorf("reply file %q is larger than %d bytes", name, maxReplyFile)
	}
	if err != nil {
		return "", fmt.Errorf("read reply file: %w", err)
	}
	return string(b), nil
}

// HasSampling reports whether the script has an entry that answers sampling requests,
// so that a headless session may declare the sampling capability.
func (s *Script) HasSampling() bool {
	for _, e := range s.entries {
		if e.Kind == kindSampling {
			return true
		}
	}
	return false
}
