package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tailscale/hujson"

	"github.com/elicitty/elicitty/tree"
)

const (
	// InstallRestore puts back the entry as it was before `elicitty proxy --install`
	// wrapped it, from the backup the install kept.
	InstallRestore InstallAction = iota + 100
	// InstallRemove removes an entry `elicitty proxy --install` added.
	InstallRemove
	// InstallNotWrapped changes nothing: the entry does not run through elicitty proxy.
	InstallNotWrapped
)

// PlanUninstall finds opts.Name in the host's config files, as PlanInstall does, and
// plans the edit that undoes `elicitty proxy --install`: an entry it wrapped gets back
// its value from the newest backup next to the file (FILE.<time>.bak) that has the
// entry unwrapped, byte for byte (comments and layout inside the entry too); without
// such a backup a wrapped command line (`elicitty proxy -- CMD ARGS`) is unwrapped in
// place. An entry it added (`elicitty proxy NAME`) is removed. Every other byte of
// the file is kept. opts.Command is the running elicitty, recognized beside any
// command named elicitty.
func (o LoadOptions) PlanUninstall(opts InstallOptions) (*Install, error) {
	o = o.withDefaults()
	_, doc, entry, missing, err := o.findEntry(opts)
	if err != nil {
		return nil, err
	}
	if doc == nil {
		return nil, missing
	}
	return doc.unwrap(opts, entry)
}

// commandLine reads an entry's command and args; ok is false when it has no command
// or its args are not a list of strings.
func commandLine(e *tree.Node) (command string, args []string, ok bool) {
	command, ok = entryString(e, "command")
	if !ok || command == "" {
		return "", nil, false
	}
	if n := e.At("args"); n != nil && n.Kind != tree.KindNull {
		if n.Kind != tree.KindArray {
			return "", nil, false
		}
		for _, item := range n.Items {
			if item.Kind != tree.KindString {
				return "", nil, false
			}
			args = append(args, item.Str)
		}
	}
	return command, args, true
}

// unwrap plans the undoing of the install of entry e.
func (d *hostDoc) unwrap(opts InstallOptions, e *tree.Node) (*Install, error) {
	at := fmt.Sprintf("%s, entry %q", d.file.Path, opts.Name)
	command, args, ok := commandLine(e)
	if e.Kind != tree.KindObject || !ok || !isProxy(command, args, opts.Command) {
		return d.planUndo(opts, InstallNotWrapped, nil)
	}
	orig, err := d.backedUp(opts)
	if err != nil {
		return nil, err
	}
	if orig != nil {
		return d.planUndo(opts, InstallRestore, orig)
	}
	rest, wrapped := afterDashes(args)
	switch {
	case wrapped && len(rest) > 0:
		// No backup: the command line comes back, every other key stays.
		v, err := d.entryWith(opts.Name, rest[0], rest[1:])
		if err != nil {
			return nil, err
		}
		return d.planUndo(opts, InstallRestore, v)
	case !wrapped && isAdded(args, opts.Name):
		return d.planUndo(opts, InstallRemove, nil)
	}
	return nil, fmt.Errorf("%s runs through elicitty proxy, but no backup next to the file has it as it was: edit it by hand", at)
}

// afterDashes returns the arguments after "--", and whether there is a "--".
func afterDashes(args []string) ([]string, bool) {
	i := slices.Index(args, "--")
	if i < 0 {
		return nil, false
	}
	return args[i+1:], true
}

// isAdded reports whether args are those of an entry --install added for a server of
// elicitty's own config: proxy, flags, then name last.
func isAdded(args []string, name string) bool {
	return len(args) >= 2 && args[0] == "proxy" && args[len(args)-1] == name
}

// backups lists the backups of the host file, newest first.
func (d *hostDoc) backups() []string {
	target := d.file.Path
	if real, err := filepath.EvalSymlinks(target); err == nil {
		target = real // Write backs up the file a link points to, beside it
	}
	found, _ := filepath.Glob(globEscape(target) + ".*.bak")
	// FILE.20060102-150405.bak, then FILE.20060102-150405-2.bak for a second in the
	// same second: newest first is the stamp descending, then the counter descending.
	key := func(p string) (string, int) {
		s := strings.TrimSuffix(strings.TrimPrefix(p, target+"."), ".bak")
		stamp, n, _ := strings.Cut(s, "-")
		if rest, m, ok := strings.Cut(n, "-"); ok {
			var c int
			fmt.Sscanf(m, "%d", &c)
			return stamp + "-" + rest, c
		}
		return stamp + "-" + n, 1
	}
	slices.SortFunc(found, func(a, b string) int {
		sa, ca := key(a)
		sb, cb := key(b)
		if c := strings.Compare(sb, sa); c != 0 {
			return c
		}
		return cb - ca
	})
	return found
}

// globEscape escapes the glob metacharacters of path.
func globEscape(path string) string {
	var b strings.Builder
	for _, r := range path {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// backedUp returns the entry opts.Name as the newest backup that has it unwrapped holds
// it (its value as written there), nil when no backup does.
func (d *hostDoc) backedUp(opts InstallOptions) (*hujson.Value, error) {
	for _, path := range d.backups() {
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
		root, err := parse(path, data, d.file.f)
		if err != nil || root.Kind != tree.KindObject {
			continue
		}
		bd := &hostDoc{file: d.file, work: d.work, data: data, root: root}
		servers := bd.servers()
		if servers == nil {
			continue
		}
		e, ok := servers.Get(opts.Name)
		if !ok {
			continue
		}
		if command, args, ok := commandLine(e); ok && isProxy(command, args, opts.Command) {
			continue // a backup of the file as install left it (kept by an uninstall)
		}
		path, err := bd.serversPath()
		if err != nil {
			continue
		}
		v, err := hujson.Parse(data)
		if err != nil {
			continue
		}
		obj, _ := newEditor(&v).object(&v, "", path)
		if m := member(obj, opts.Name); m != nil {
			return &m.Value, nil // of a parse of its own: not shared
		}
	}
	return nil, nil
}

// entryWith returns the current entry name with command and args set, every other key
// kept: an entry unwrapped in place.
func (d *hostDoc) entryWith(name, command string, args []string) (*hujson.Value, error) {
	path, err := d.serversPath()
	if err != nil {
		return nil, err
	}
	v, err := hujson.Parse(d.data)
	if err != nil {
		return nil, fmt.Errorf("cannot parse %s, so it is left alone: %w", d.file.Path, err)
	}
	ed := newEditor(&v)
	obj, closing := ed.object(&v, "", path)
	m := member(obj, name)
	entry, ok := m.Value.Value.(*hujson.Object)
	if !ok {
		return nil, fmt.Errorf("%s, entry %q: must be an object", d.file.Path, name)
	}
	sep, multiline := ed.layoutOf(obj, closing)
	entryClosing := closing
	if multiline {
		entryClosing = strings.TrimPrefix(sep, ed.nl)
	}
	ed.set(entry, entryClosing, "command", command, -1)
	if len(args) == 0 {
		ed.remove(entry, "args")
	} else {
		ed.set(entry, entryClosing, "args", args, -1)
	}
	out := m.Value.Clone()
	return &out, nil
}

// planUndo builds the Install that puts orig in place of the entry (InstallRestore),
// removes it (InstallRemove) or changes nothing (InstallNotWrapped).
func (d *hostDoc) planUndo(opts InstallOptions, action InstallAction, orig *hujson.Value) (*Install, error) {
	path, err := d.serversPath()
	if err != nil {
		return nil, err
	}
	in := &Install{File: d.file, Name: opts.Name, Action: action, Path: path, before: d.data, mode: d.mode}
	v, err := hujson.Parse(d.data)
	if err != nil {
		return nil, fmt.Errorf("cannot parse %s, so it is left alone: %w", d.file.Path, err)
	}
	ed := newEditor(&v)
	obj, _ := ed.object(&v, "", path)
	m := member(obj, opts.Name)
	if m == nil {
		return nil, fmt.Errorf("%s: entry %q not found", d.file.Path, opts.Name)
	}
	shown := m.Value.Clone()
	switch action {
	case InstallRestore:
		m.Value.Value = orig.Value
		shown = m.Value.Clone()
	case InstallRemove:
		ed.remove(obj, opts.Name)
		if len(obj.Members) == 0 && len(bytes.TrimSpace(obj.AfterExtra)) == 0 {
			obj.AfterExtra = nil // "{}", as it was before the entry was added
		}
	}
	if in.entry, err = standard(shown); err != nil {
		return nil, err
	}
	in.Redacted = redact(&shown)
	pretty, err := standard(shown)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, pretty, "", "  "); err != nil {
		return nil, fmt.Errorf("format entry: %w", err)
	}
	in.Entry = buf.Bytes()
	in.after = v.Pack()
	if d.bom {
		in.after = append([]byte("\xef\xbb\xbf"), in.after...)
	}
	if action == InstallNotWrapped {
		return in, nil
	}
	after := bytes.TrimPrefix(in.after, []byte("\xef\xbb\xbf"))
	root, err := parse(d.file.Path, after, d.file.f)
	if err != nil {
		return nil, fmt.Errorf("editing %s would break it (%w); it is left alone", d.file.Path, err)
	}
	n := root
	for _, k := range path {
		if n = n.At(k); n == nil {
			break
		}
	}
	has := n != nil && n.Has(opts.Name)
	if has != (action == InstallRestore) {
		return nil, fmt.Errorf("editing %s did not give the entry %q as planned; it is left alone", d.file.Path, opts.Name)
	}
	return in, nil
}
