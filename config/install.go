package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/tailscale/hujson"

	"github.com/elicitty/elicitty/tree"
)

// NoEntryError is PlanInstall's error for a server that is neither in the host's
// config files nor elicitty's own.
type NoEntryError struct {
	Host  Host
	Name  string
	Files []string // the host's files, whether they exist or not
	Known []string // the servers the host's files have, sorted
}

func (e *NoEntryError) Error() string {
	msg := fmt.Sprintf("server %q is in neither %s's config (%s) nor elicitty's own", e.Name, e.Host.Title(), strings.Join(e.Files, ", "))
	if len(e.Known) > 0 {
		msg += fmt.Sprintf("; %s has %s", e.Host.Title(), strings.Join(e.Known, ", "))
	}
	return msg
}

// InstallOptions says which entry PlanInstall puts into which host's config.
type InstallOptions struct {
	// Host is the host whose config is edited.
	Host Host
	// Name is the server: an entry of the host's config, which is wrapped, or else a
	// server of elicitty's own config (Own), for which an entry is added.
	Name string
	// Command is how the host starts elicitty: "elicitty" or an absolute path.
	Command string
	// Own reports that elicitty's own config (or the built-ins) defines Name.
	Own bool
	// ConfigFile, when set, is passed as --config in an added entry, so that the
	// host's elicitty reads the file Name was found in.
	ConfigFile string
	// GOOS chooses the user file of a host whose path depends on the platform (Claude
	// Desktop, VS Code) when none exists yet; "" means the running platform.
	GOOS string
}

// InstallAction is what an Install does to the host's config.
type InstallAction int

const (
	// InstallWrap rewrites an existing entry so that the host starts it through
	// `elicitty proxy`.
	InstallWrap InstallAction = iota + 1
	// InstallAdd adds an entry `elicitty proxy NAME` for a server of elicitty's config.
	InstallAdd
	// InstallWrapped changes nothing: the entry already goes through elicitty proxy.
	InstallWrapped
	// InstallRepoint changes the command of an entry that already goes through
	// elicitty proxy to InstallOptions.Command: an earlier install wrote a bare
	// "elicitty" (which GUI hosts do not find on their PATH) or a binary since moved.
	InstallRepoint
)

// Install is a planned edit of one host config file: one entry added or rewritten, every
// other byte kept (comments and formatting too). Build one with PlanInstall; Write
// applies it.
type Install struct {
	// File is the file edited (or created).
	File HostFile
	// Name is the entry's name.
	Name string
	// Action says what the edit does.
	Action InstallAction
	// Path is the keys from the top of the file to the object of servers.
	Path []string
	// Entry is the entry as it will be: standard JSON (no comments), indented by two
	// spaces, with env and header values replaced by "<redacted>".
	Entry []byte
	// Redacted reports that Entry has redacted values.
	Redacted bool
	// Create reports that the file does not exist yet.
	Create bool

	entry  []byte      // the entry as it will be, compact and complete
	before []byte      // the file as read
	after  []byte      // the file as it will be
	mode   fs.FileMode // the file's permissions
}

// findEntry finds opts.Name in the host's config files as the host reads them (project
// and local scopes first) and returns the files, and the file and entry that hold it.
// When none does, doc is nil and missing is the error that says so, naming the servers
// the files hold (callers that may add the entry do instead). A file that cannot be
// parsed is an error.
func (o LoadOptions) findEntry(opts InstallOptions) (files []HostFile, doc *hostDoc, entry *tree.Node, missing, err error) {
	if opts.Name == "" {
		return nil, nil, nil, nil, errors.New("empty server name")
	}
	files = o.installFiles(opts.Host)
	if len(files) == 0 {
		return nil, nil, nil, nil, fmt.Errorf("unknown host %q (want %s)", opts.Host, HostUsage())
	}
	var known []string
	for _, hf := range slices.Backward(files) {
		d, err := readHostFile(hf, o.WorkDir)
		if err != nil {
			return nil, nil, nil, nil, err
		}
		if d == nil {
			continue
		}
		if servers := d.servers(); servers != nil {
			known = append(known, servers.Keys...)
			if e, ok := servers.Get(opts.Name); ok {
				return files, d, e, nil, nil
			}
		}
	}
	return files, nil, nil, noEntry(opts, files, known), nil
}

// noEntry is the error of a server none of files has; known are the names they hold.
func noEntry(opts InstallOptions, files []HostFile, known []string) *NoEntryError {
	e := &NoEntryError{Host: opts.Host, Name: opts.Name}
	for _, hf := range files {
		e.Files = append(e.Files, hf.Path)
	}
	slices.Sort(known)
	e.Known = slices.Compact(known)
	return e
}

// PlanInstall finds opts.Name in the host's config files (project and local scopes
// first, as the host reads them) and plans the edit that makes the host start it
// through `elicitty proxy`. A file that cannot be parsed is an error, never edited.
func (o LoadOptions) PlanInstall(opts InstallOptions) (*Install, error) {
	o = o.withDefaults()
	files, doc, entry, missing, err := o.findEntry(opts)
	if err != nil {
		return nil, err
	}
	if doc != nil {
		return doc.wrap(opts, entry)
	}
	if !opts.Own {
		return nil, missing
	}
	hf := o.defaultFile(opts.Host, files, opts.GOOS)
	doc, err = readHostFile(hf, o.WorkDir)
	if err != nil {
		return nil, err
	}
	if doc == nil {
		doc = &hostDoc{file: hf, create: true, data: []byte("{}\n"), mode: 0o600}
		if doc.root, err = parse(hf.Path, doc.data, hf.f); err != nil {
			return nil, err
		}
	}
	return doc.add(opts)
}

// installFiles are the files of host h, in layering order; nil for a host elicitty
// cannot install into.
func (o LoadOptions) installFiles(h Host) []HostFile {
	if !slices.Contains(Hosts(), h) {
		return nil
	}
	var out []HostFile
	for _, hf := range o.hostFiles() {
		if hf.Host == h {
			out = append(out, hf)
		}
	}
	return out
}

// defaultFile is where a new entry goes: the host's user file (for a platform-dependent
// one, the first that exists, else the one of goos).
func (o LoadOptions) defaultFile(h Host, files []HostFile, goos string) HostFile {
	if goos == "" {
		goos = runtime.GOOS
	}
	var user []HostFile
	for _, hf := range files {
		if hf.Scope == ScopeUser {
			user = append(user, hf)
		}
	}
	for _, hf := range user {
		if _, err := os.Stat(hf.Path); err == nil {
			return hf
		}
	}
	for _, hf := range user {
		if hf.platform == goos {
			return hf
		}
	}
	return user[0]
}

// hostDoc is one host config file, read and parsed.
type hostDoc struct {
	file   HostFile
	work   string
	data   []byte // without a byte order mark
	bom    bool
	mode   fs.FileMode
	create bool
	root   *tree.Node
}

// readHostFile reads and parses hf; a missing or empty file is nil, nil.
func readHostFile(hf HostFile, work string) (*hostDoc, error) {
	data, err := readConfigFile(hf.Path, hf.max())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	st, err := os.Stat(hf.Path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", hf.Path, err)
	}
	d := &hostDoc{file: hf, work: work, mode: st.Mode().Perm()}
	d.data, d.bom = bytes.CutPrefix(data, []byte("\xef\xbb\xbf"))
	root, err := parse(hf.Path, d.data, hf.f)
	if err != nil {
		var ce *Error
		if errors.As(err, &ce) {
			ce.File = hf.Path
			return nil, fmt.Errorf("cannot parse %s's config, so it is left alone: %w", hf.Host.Title(), ce)
		}
		return nil, fmt.Errorf("cannot parse %s's config %s, so it is left alone: %w", hf.Host.Title(), hf.Path, err)
	}
	if root.Kind != tree.KindObject {
		return nil, &Error{File: hf.Path, Line: root.Loc.Line, Col: root.Loc.Column, Msg: "the top level must be an object, got " + kindName(root.Kind)}
	}
	d.root = root
	if _, err := d.serversPath(); err != nil {
		return nil, err
	}
	return d, nil
}

// serversPath is the keys from the top of the file to its object of servers, checking
// that every value on the way is an object (or absent or null).
func (d *hostDoc) serversPath() ([]string, error) {
	path := []string{d.file.f.serversKey()}
	if d.file.f == formatClaudeLocal {
		key := d.work
		if projects := d.root.At("projects"); projects != nil && projects.Kind == tree.KindObject {
			for _, k := range claudeProjectKeys(d.work) {
				if projects.Has(k) {
					key = k
					break
				}
			}
		}
		path = []string{"projects", key, "mcpServers"}
	}
	n := d.root
	for i, k := range path {
		n = n.At(k)
		if n == nil || n.Kind == tree.KindNull {
			break
		}
		if n.Kind != tree.KindObject {
			return nil, &Error{File: d.file.Path, Line: n.Loc.Line, Col: n.Loc.Column, Field: strings.Join(path[:i+1], "."),
				Msg: "must be an object, got " + kindName(n.Kind)}
		}
	}
	return path, nil
}

// servers is the object of servers, nil when there is none.
func (d *hostDoc) servers() *tree.Node {
	path, _ := d.serversPath()
	n := d.root
	for _, k := range path {
		if n = n.At(k); n == nil || n.Kind != tree.KindObject {
			return nil
		}
	}
	return n
}

// proxyArgs are the arguments after the command of an entry that wraps server.
func proxyArgs(argv ...string) []string {
	return append([]string{"proxy"}, argv...)
}

// isProxy reports whether an entry's command line already runs elicitty proxy.
func isProxy(command string, args []string, self string) bool {
	base := strings.ToLower(command[strings.LastIndexAny(command, `/\`)+1:])
	base = strings.TrimSuffix(base, ".exe")
	if base != "elicitty" && command != self {
		return false
	}
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "proxy" {
			return true
		}
	}
	return false
}

// entryString reads the raw (unexpanded) string value of an entry's key.
func entryString(e *tree.Node, key string) (string, bool) {
	n := e.At(key)
	if n == nil || n.Kind != tree.KindString {
		return "", false
	}
	return n.Str, true
}

// wrap plans the rewrite of the existing entry e.
func (d *hostDoc) wrap(opts InstallOptions, e *tree.Node) (*Install, error) {
	at := fmt.Sprintf("%s, entry %q", d.file.Path, opts.Name)
	if e.Kind != tree.KindObject {
		return nil, fmt.Errorf("%s: must be an object, got %s", at, kindName(e.Kind))
	}
	edit := entryEdit{}
	if command, ok := entryString(e, "command"); ok && command != "" {
		var args []string
		if n := e.At("args"); n != nil && n.Kind != tree.KindNull {
			if n.Kind != tree.KindArray {
				return nil, fmt.Errorf("%s: args must be a list of strings, got %s", at, kindName(n.Kind))
			}
			for _, item := range n.Items {
				if item.Kind != tree.KindString {
					return nil, fmt.Errorf("%s: args must be a list of strings, got a %s in it", at, kindName(item.Kind))
				}
				args = append(args, item.Str)
			}
		}
		if isProxy(command, args, opts.Command) {
			if command == opts.Command || opts.Command == "" {
				return d.plan(opts, InstallWrapped, nil)
			}
			return d.plan(opts, InstallRepoint, &entryEdit{repoint: true})
		}
		edit.args = proxyArgs(append([]string{"--", command}, args...)...)
		return d.plan(opts, InstallWrap, &edit)
	}
	var url, urlKey string
	for _, k := range d.file.f.urlKeys() {
		if u, ok := entryString(e, k); ok && u != "" {
			url, urlKey = u, k
		}
	}
	if url == "" {
		return nil, fmt.Errorf("%s has neither a command nor a URL", at)
	}
	edit.drop = append(d.file.f.urlKeys(), "headers")
	edit.at = urlKey
	if h := e.At("headers"); h != nil && h.Kind == tree.KindObject && len(h.Keys) > 0 {
		if !opts.Own {
			return nil, fmt.Errorf("%s sends headers (%s), which elicitty proxy URL cannot send: add the server with its url and headers to elicitty's config under the same name, then install again", at, strings.Join(h.Keys, ", "))
		}
		edit.args = d.ownArgs(opts)
	} else {
		edit.args = proxyArgs(url)
	}
	if e.Has("type") || d.file.f == formatVSCode {
		edit.kind = "stdio"
	}
	return d.plan(opts, InstallWrap, &edit)
}

// ownArgs are the arguments of an entry that proxies a server of elicitty's config.
func (d *hostDoc) ownArgs(opts InstallOptions) []string {
	argv := []string{"--no-imports"}
	if opts.ConfigFile != "" {
		argv = append(argv, "--config", opts.ConfigFile)
	}
	return proxyArgs(append(argv, opts.Name)...)
}

// add plans a new entry for a server of elicitty's own config.
func (d *hostDoc) add(opts InstallOptions) (*Install, error) {
	edit := entryEdit{args: d.ownArgs(opts), add: true}
	if d.file.f == formatVSCode || d.file.Host == HostClaudeCode {
		edit.kind = "stdio"
	}
	return d.plan(opts, InstallAdd, &edit)
}

// urlKeys are the keys that hold an HTTP server's URL in a format.
func (f format) urlKeys() []string {
	switch f {
	case formatWindsurf:
		return []string{"url", "serverUrl"}
	case formatGemini:
		return []string{"url", "httpUrl"}
	}
	return []string{"url"}
}

// claudeProjectKeys are the keys Claude Code may use for the project directory work in
// ~/.claude.json (absolute path; forward slashes on Windows).
func claudeProjectKeys(work string) []string {
	return []string{work, filepath.Clean(work), filepath.ToSlash(filepath.Clean(work))}
}

// entryEdit is the change to one entry: its type, command and args set (added when
// add), the keys in drop removed; command and args take the place of the key at.
type entryEdit struct {
	repoint bool // only the command changes
	kind    string
	args    []string
	drop    []string
	at      string
	add     bool
}

// plan applies edit (nil: none) to the file in memory and builds the Install.
func (d *hostDoc) plan(opts InstallOptions, action InstallAction, edit *entryEdit) (*Install, error) {
	path, err := d.serversPath()
	if err != nil {
		return nil, err
	}
	in := &Install{File: d.file, Name: opts.Name, Action: action, Path: path, Create: d.create, before: d.data, mode: d.mode}
	v, err := hujson.Parse(d.data)
	if err != nil {
		return nil, fmt.Errorf("cannot parse %s, so it is left alone: %w", d.file.Path, err)
	}
	ed := newEditor(&v)
	obj, indent := ed.object(&v, "", path)
	if edit != nil {
		ed.apply(obj, indent, opts, edit)
	}
	entry := member(obj, opts.Name)
	if entry == nil {
		return nil, fmt.Errorf("%s: entry %q not found after editing", d.file.Path, opts.Name)
	}
	if in.entry, err = standard(entry.Value); err != nil {
		return nil, err
	}
	shown := entry.Value.Clone()
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
	if action != InstallWrapped {
		if err := d.check(in, path); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// check parses the edited file as the loader would and makes sure the entry reads as
// planned: the edit never writes a file elicitty (and so the host) could not read.
func (d *hostDoc) check(in *Install, path []string) error {
	after := bytes.TrimPrefix(in.after, []byte("\xef\xbb\xbf"))
	root, err := parse(d.file.Path, after, d.file.f)
	if err != nil {
		return fmt.Errorf("editing %s would break it (%w); it is left alone", d.file.Path, err)
	}
	n := root
	for _, k := range append(path, in.Name) {
		if n = n.At(k); n == nil {
			return fmt.Errorf("editing %s lost the entry %q; it is left alone", d.file.Path, in.Name)
		}
	}
	var got map[string]any
	if err := json.Unmarshal(in.entry, &got); err != nil || got["command"] == nil {
		return fmt.Errorf("editing %s gave an entry %q without a command; it is left alone", d.file.Path, in.Name)
	}
	return nil
}

// standard returns v as compact standard JSON.
func standard(v hujson.Value) ([]byte, error) {
	v = v.Clone()
	v.Standardize()
	var buf bytes.Buffer
	if err := json.Compact(&buf, v.Pack()); err != nil {
		return nil, fmt.Errorf("format entry: %w", err)
	}
	return buf.Bytes(), nil
}

// redact replaces the values of an entry's env and headers with "<redacted>" and
// reports whether it replaced any.
func redact(entry *hujson.Value) bool {
	obj, ok := entry.Value.(*hujson.Object)
	if !ok {
		return false
	}
	any := false
	for _, key := range []string{"env", "headers"} {
		m := member(obj, key)
		if m == nil {
			continue
		}
		inner, ok := m.Value.Value.(*hujson.Object)
		if !ok {
			continue
		}
		for i := range inner.Members {
			inner.Members[i].Value.Value = hujson.String(redactedValue)
			any = true
		}
	}
	return any
}

// Write applies the edit: it keeps a copy of the file as it was next to it
// (FILE.<UTC time>.bak, private when the file is) and replaces the file with the edited
// one, through a temporary file in the same directory. A new file and its directory are
// created private. It returns the backup's path ("" when the file is new). A file that
// changed since PlanInstall read it is left alone.
func (in *Install) Write(now time.Time) (backup string, err error) {
	if in.Action == InstallWrapped || in.Action == InstallNotWrapped {
		return "", nil
	}
	target := in.File.Path
	if in.Create {
		if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
			return "", fmt.Errorf("create %s: %w", filepath.Dir(target), err)
		}
		if _, err := os.Lstat(target); err == nil {
			return "", fmt.Errorf("%s appeared since it was read; run again", target)
		}
	} else {
		if real, err := filepath.EvalSymlinks(target); err == nil {
			target = real // edit a linked dotfile, keep the link
		}
		cur, err := readConfigFile(target, in.File.max())
		if err != nil {
			return "", fmt.Errorf("read %s: %w", target, err)
		}
		if !bytes.Equal(bytes.TrimPrefix(cur, []byte("\xef\xbb\xbf")), in.before) {
			return "", fmt.Errorf("%s changed since it was read; run again", target)
		}
		if backup, err = writeBackup(target, cur, in.mode, now); err != nil {
			return "", err
		}
	}
	if err := replaceFile(target, in.after, in.mode); err != nil {
		return backup, err
	}
	return backup, nil
}

// writeBackup writes data to a new FILE.<time>.bak next to file, 0600 when the file is
// private (no group or other permissions), else with its permissions.
func writeBackup(file string, data []byte, mode fs.FileMode, now time.Time) (string, error) {
	perm := mode
	if perm&0o077 == 0 {
		perm = 0o600
	}
	stamp := now.UTC().Format("20060102-150405")
	for i := 1; ; i++ {
		name := file + "." + stamp + ".bak"
		if i > 1 {
			name = fmt.Sprintf("%s.%s-%d.bak", file, stamp, i)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) && i < 100 {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("back up %s: %w", file, err)
		}
		if err := f.Chmod(perm); err != nil { // the umask may have taken bits away
			f.Close()
			return "", fmt.Errorf("back up %s: %w", file, err)
		}
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(name)
			return "", fmt.Errorf("back up %s: %w", file, err)
		}
		return name, nil
	}
}

// replaceFile writes data to file through a temporary file renamed over it.
func replaceFile(file string, data []byte, perm fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", file, err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", file, err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", file, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", file, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", file, err)
	}
	if err := os.Rename(tmp.Name(), file); err != nil {
		return fmt.Errorf("write %s: %w", file, err)
	}
	return nil
}

// EntryJSON is the entry as it will be written, compact and complete (secrets
// included): for a command line such as `claude mcp add-json`.
func (in *Install) EntryJSON() []byte { return in.entry }
