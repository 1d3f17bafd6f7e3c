package tree

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/tailscale/hujson"
)

// ErrorKind classifies a parse failure.
type ErrorKind int

// The kinds of parse failure.
const (
	// Syntax is malformed input.
	Syntax ErrorKind = iota + 1
	// Duplicate is an object key given twice (Key, First).
	Duplicate
	// Limit is input nested deeper than Options.MaxDepth or with more values than
	// Options.MaxNodes.
	Limit
	// Unsupported is well-formed input the options refuse (YAML aliases, tags, ...).
	Unsupported
)

// Error is a parse failure at a position. Its message is lower case and starts with
// "invalid JSON: " or "invalid YAML: " for syntax errors.
type Error struct {
	Kind ErrorKind
	// Loc is where the problem is; zero when unknown.
	Loc Location
	// Offset is the byte offset of Loc (JSON only; -1 when unknown).
	Offset int
	// Msg says what is wrong.
	Msg string
	// Key and First are the duplicated key and the position of its first occurrence.
	Key   string
	First Location
	// Err is the underlying error, if any.
	Err error
}

// Error returns "line:col: message", or the message alone when the position is unknown.
func (e *Error) Error() string {
	if e.Loc.Line == 0 {
		return e.Msg
	}
	if e.Loc.Column == 0 {
		return fmt.Sprintf("%d: %s", e.Loc.Line, e.Msg)
	}
	return fmt.Sprintf("%d:%d: %s", e.Loc.Line, e.Loc.Column, e.Msg)
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Options tunes a parse. The zero value means: depth 64, no node limit, duplicate keys
// rejected, no raw bytes, permissive YAML.
type Options struct {
	// MaxDepth bounds the nesting of arrays and objects; zero means 64.
	MaxDepth int
	// MaxNodes bounds the number of values (YAML aliases count each time they are
	// expanded); zero means no bound.
	MaxNodes int
	// KeepLastDuplicate accepts duplicate keys as encoding/json does: the member keeps
	// its first position and takes the last value; Result.Duplicates lists the keys.
	// Otherwise a duplicate key is an Error of kind Duplicate.
	KeepLastDuplicate bool
	// Raw keeps each JSON value's bytes in Node.Raw.
	Raw bool
	// PackStrings, when positive, packs each JSON array of at least PackStrings items
	// that are all strings: the node keeps its items as strings (Node.Strings), not as
	// nodes (Items is nil), without their positions or Raw. A million-option enum is
	// then one []string and one block of its bytes instead of a million nodes. Errors and
	// limits are those of an unpacked parse. YAML ignores it.
	PackStrings int
	// PackRecords, when positive, packs each JSON array of at least PackRecords items
	// that are all records: objects of at most MaxRecordMembers members whose values
	// are all strings, such as a oneOf list of {const, title} choices. The node keeps
	// each item as its keys and values (Node.Record), not as nodes (Items is nil),
	// without positions or Raw; records with the same keys share them. An array with a
	// duplicate key in an item is not packed. Errors and limits are those of an
	// unpacked parse. YAML ignores it.
	PackRecords int
	// StrictYAML restricts YAML to what JSON can say: one document, no aliases,
	// anchors or tags, string keys, finite numbers (written canonically in Str), dates
	// as strings. Otherwise aliases are expanded (counted against MaxNodes), merge keys
	// are refused and scalars keep their text.
	StrictYAML bool
}

func (o *Options) depth() int {
	if o == nil || o.MaxDepth <= 0 {
		return 64
	}
	return o.MaxDepth
}

// Result is a parsed document.
type Result struct {
	// Root is the top-level value; nil for an empty YAML document.
	Root *Node
	// Duplicates are the keys given more than once, with Options.KeepLastDuplicate.
	Duplicates []string
}

// ParseJSON parses one JSON (RFC 8259) value; nothing but whitespace may follow it.
// Errors are *Error with the line and column of the problem.
func ParseJSON(data []byte, opts *Options) (*Result, error) {
	p := &jsonParser{data: data, loc: locator{line: 1, col: 1}}
	if opts != nil {
		p.opts = *opts
	}
	p.maxDepth = p.opts.depth()
	p.ws()
	n, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.pos < len(p.data) {
		return nil, p.fail(p.pos, "unexpected data after the top-level value")
	}
	return &Result{Root: n, Duplicates: p.dups}, nil
}

// ParseJSONC parses JSON with comments and trailing commas (VS Code's and Cursor's
// config files). The comments are blanked out by hujson, which keeps every offset, so
// positions are those of the file as written.
func ParseJSONC(data []byte, opts *Options) (*Result, error) {
	std, err := hujson.Standardize(append([]byte(nil), data...))
	if err != nil {
		// Report the error at the place hujson found it.
		return nil, hujsonError(data, err)
	}
	return ParseJSON(std, opts)
}

// hujsonError converts a hujson parse error; the offset is found by parsing as JSON
// when hujson does not say.
func hujsonError(data []byte, err error) error {
	var line, col int
	var msg string
	if _, scanErr := fmt.Sscanf(err.Error(), "hujson: line %d, column %d: ", &line, &col); scanErr == nil {
		prefix := fmt.Sprintf("hujson: line %d, column %d: ", line, col)
		msg = err.Error()[len(prefix):]
		// hujson counts columns in bytes; ours are characters.
		off := offsetOf(data, line, col)
		return &Error{Kind: Syntax, Loc: locationAt(data, off), Offset: off, Msg: "invalid JSON: " + msg, Err: err}
	}
	return &Error{Kind: Syntax, Offset: -1, Msg: "invalid JSON: " + err.Error(), Err: err}
}

// offsetOf returns the byte offset of a 1-based line and byte column.
func offsetOf(data []byte, line, col int) int {
	off := 0
	for l := 1; l < line && off < len(data); off++ {
		if data[off] == '\n' {
			l++
		}
	}
	off += col - 1
	if off > len(data) {
		off = len(data)
	}
	if off < 0 {
		off = 0
	}
	return off
}

// LocationAt converts a byte offset into a position (in time linear in the offset).
func LocationAt(data []byte, off int) Location { return locationAt(data, off) }

func locationAt(data []byte, off int) Location {
	l := locator{line: 1, col: 1}
	return l.at(data, off)
}

// locator converts increasing byte offsets to positions in time linear in the input.
type locator struct {
	off, line, col int
}

func (l *locator) at(data []byte, off int) Location {
	if off > len(data) {
		off = len(data)
	}
	if off < l.off {
		l.off, l.line, l.col = 0, 1, 1
	}
	for l.off < off {
		c := data[l.off]
		if c < utf8.RuneSelf {
			l.off++
			if c == '\n' {
				l.line++
				l.col = 1
			} else {
				l.col++
			}
			continue
		}
		_, size := utf8.DecodeRune(data[l.off:])
		l.off += size
		l.col++
	}
	return Location{Line: l.line, Column: l.col}
}

// jsonParser is a recursive-descent JSON parser that records the position of every
// value and key, finds duplicate keys and bounds nesting. It defers to encoding/json
// only to decode strings that contain escapes.
type jsonParser struct {
	data     []byte
	pos      int
	opts     Options
	maxDepth int
	nodes    int
	loc      locator
	dups     []string
	slab     []Node // nodes not yet handed out (newNode)
}

// newNode returns n moved into the parser's slab: nodes are allocated in blocks that
// grow to maxSlab, not one by one (a million-item array is a million nodes).
func (p *jsonParser) newNode(n Node) *Node {
	if len(p.slab) == 0 {
		p.slab = make([]Node, min(maxSlab, max(16, p.nodes/2)))
	}
	m := &p.slab[0]
	*m = n
	p.slab = p.slab[1:]
	return m
}

// maxSlab is the most nodes newNode allocates at once.
const maxSlab = 1024

func (p *jsonParser) locAt(off int) Location { return p.loc.at(p.data, off) }

func (p *jsonParser) fail(off int, format string, args ...any) *Error {
	return &Error{Kind: Syntax, Loc: p.locAt(off), Offset: off, Msg: "invalid JSON: " + fmt.Sprintf(format, args...)}
}

func (p *jsonParser) ws() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\r', '\n':
			p.pos++
		default:
			return
		}
	}
}

func (p *jsonParser) unexpected() *Error {
	if p.pos >= len(p.data) {
		return p.fail(p.pos, "unexpected end of input")
	}
	r, _ := utf8.DecodeRune(p.data[p.pos:])
	return p.fail(p.pos, "unexpected character %q", r)
}

func (p *jsonParser) value(depth int) (*Node, error) {
	if p.pos >= len(p.data) {
		return nil, p.unexpected()
	}
	p.nodes++
	if p.opts.MaxNodes > 0 && p.nodes > p.opts.MaxNodes {
		return nil, &Error{Kind: Limit, Loc: p.locAt(p.pos), Offset: p.pos, Msg: fmt.Sprintf("the document has more than %d values", p.opts.MaxNodes)}
	}
	start := p.pos
	n, err := p.bare(depth)
	if err != nil {
		return nil, err
	}
	if p.opts.Raw {
		n.Raw = p.data[start:p.pos:p.pos]
	}
	return n, nil
}

func (p *jsonParser) bare(depth int) (*Node, error) {
	start := p.pos
	switch c := p.data[p.pos]; {
	case c == '{' || c == '[':
		if depth >= p.maxDepth {
			return nil, &Error{Kind: Limit, Loc: p.locAt(start), Offset: start, Msg: fmt.Sprintf("the document nests deeper than %d levels", p.maxDepth)}
		}
		if c == '{' {
			return p.object(depth)
		}
		return p.array(depth)
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return p.newNode(Node{Kind: KindString, Str: s, Loc: p.locAt(start)}), nil
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case c == 't':
		return p.literal("true", p.newNode(Node{Kind: KindBool, Bool: true}))
	case c == 'f':
		return p.literal("false", p.newNode(Node{Kind: KindBool}))
	case c == 'n':
		return p.literal("null", p.newNode(Node{Kind: KindNull}))
	}
	return nil, p.unexpected()
}

func (p *jsonParser) literal(word string, n *Node) (*Node, error) {
	if len(p.data)-p.pos < len(word) || string(p.data[p.pos:p.pos+len(word)]) != word {
		return nil, p.unexpected()
	}
	n.Loc = p.locAt(p.pos)
	p.pos += len(word)
	return n, nil
}

func (p *jsonParser) object(depth int) (*Node, error) {
	n := p.newNode(Node{Kind: KindObject, Loc: p.locAt(p.pos)})
	p.pos++ // {
	p.ws()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return n, nil
	}
	for {
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			if p.pos < len(p.data) {
				return nil, p.fail(p.pos, "object key is not a string")
			}
			return nil, p.unexpected()
		}
		kpos := p.pos
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		kloc := p.locAt(kpos)
		p.ws()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.unexpected()
		}
		p.pos++
		p.ws()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		if first := n.addMember(key, kloc, v); first >= 0 {
			if !p.opts.KeepLastDuplicate {
				return nil, &Error{Kind: Duplicate, Loc: kloc, Offset: kpos, Key: key, First: n.KeyLocs[first],
					Msg: fmt.Sprintf("duplicate key %q", key)}
			}
			n.Values[first] = v
			p.dups = append(p.dups, key)
		}
		end, err := p.after('}')
		if err != nil {
			return nil, err
		}
		if end {
			return n, nil
		}
	}
}

// after reads what follows a member or an item: a comma, when more follow, or close,
// which ends the object or array (end is true).
func (p *jsonParser) after(close byte) (end bool, err error) {
	p.ws()
	if p.pos >= len(p.data) {
		return false, p.unexpected()
	}
	switch p.data[p.pos] {
	case ',':
		p.pos++
		p.ws()
		return false, nil
	case close:
		p.pos++
		return true, nil
	}
	return false, p.unexpected()
}

func (p *jsonParser) array(depth int) (*Node, error) {
	n := p.newNode(Node{Kind: KindArray, Loc: p.locAt(p.pos)})
	if p.opts.PackStrings > 0 {
		if count, end := p.stringItems(); count >= p.opts.PackStrings && p.room(count) {
			return p.packStrings(n, count, end)
		}
	}
	// An item of the array is an object at depth+1, which must be allowed.
	if p.opts.PackRecords > 0 && depth+1 < p.maxDepth {
		if count, members, end := p.recordItems(); count >= p.opts.PackRecords && p.room(count+members) {
			if packed, err := p.packRecords(n, count, members, end); packed != nil || err != nil {
				return packed, err
			}
		}
	}
	p.pos++ // [
	p.ws()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return n, nil
	}
	for {
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.Items = append(n.Items, v)
		end, err := p.after(']')
		if err != nil {
			return nil, err
		}
		if end {
			return n, nil
		}
	}
}

// room reports whether count more values stay within Options.MaxNodes.
func (p *jsonParser) room(count int) bool {
	return p.opts.MaxNodes <= 0 || p.nodes+count <= p.opts.MaxNodes
}

// peek is a look-ahead cursor over a parser's data: it checks the shape of what
// follows, not its values.
type peek struct {
	d []byte
	i int
}

func (k *peek) ws() {
	for k.i < len(k.d) && (k.d[k.i] == ' ' || k.d[k.i] == '\t' || k.d[k.i] == '\r' || k.d[k.i] == '\n') {
		k.i++
	}
}

// is moves past c when it comes next.
func (k *peek) is(c byte) bool {
	if k.i < len(k.d) && k.d[k.i] == c {
		k.i++
		return true
	}
	return false
}

// str moves past a string without control characters, or reports false.
func (k *peek) str() bool {
	if !k.is('"') {
		return false
	}
	for ; k.i < len(k.d) && k.d[k.i] >= 0x20; k.i++ {
		switch k.d[k.i] {
		case '\\':
			k.i++
		case '"':
			k.i++
			return true
		}
	}
	return false
}

// stringItems looks ahead at the array at p.pos: when it holds only strings, it returns
// their number and the offset just past its ']'; otherwise (count 0) the array is parsed
// item by item, which also reports its errors. It reads at most the array's bytes.
func (p *jsonParser) stringItems() (count, end int) {
	k := peek{d: p.data, i: p.pos + 1} // [
	k.ws()
	for k.str() {
		count++
		k.ws()
		if k.is(']') {
			return count, k.i
		}
		if !k.is(',') {
			return 0, 0
		}
		k.ws()
	}
	return 0, 0
}

// MaxRecordMembers is the most members an object of a packed array of records has
// (Options.PackRecords).
const MaxRecordMembers = 16

// recordItems looks ahead at the array at p.pos: when it holds only records (objects
// of at most MaxRecordMembers string members), it returns their number, the number of
// their members and the offset just past its ']'; otherwise count is 0. It reads at
// most the array's bytes.
func (p *jsonParser) recordItems() (count, members, end int) {
	k := peek{d: p.data, i: p.pos + 1} // [
	k.ws()
	for k.is('{') {
		k.ws()
		m := 0
		for ; !k.is('}'); m++ {
			if m > 0 {
				if !k.is(',') {
					return 0, 0, 0
				}
				k.ws()
			}
			if m == MaxRecordMembers || !k.str() {
				return 0, 0, 0
			}
			k.ws()
			if !k.is(':') {
				return 0, 0, 0
			}
			k.ws()
			if !k.str() {
				return 0, 0, 0
			}
			k.ws()
		}
		count++
		members += m
		k.ws()
		if k.is(']') {
			if members >= math.MaxInt32 {
				return 0, 0, 0
			}
			return count, members, k.i
		}
		if !k.is(',') {
			return 0, 0, 0
		}
		k.ws()
	}
	return 0, 0, 0
}

// packStrings reads the array at p.pos, of count strings ending at end
// (stringItems), into n as a packed array. The strings without escapes share one
// block of bytes (arena).
func (p *jsonParser) packStrings(n *Node, count, end int) (*Node, error) {
	strs := make([]string, 0, count)
	arena := newArena(p, end)
	p.pos++ // [
	for {
		p.ws()
		s, err := arena.str(p)
		if err != nil {
			return nil, err
		}
		strs = append(strs, s)
		p.ws()
		if p.data[p.pos] == ']' {
			p.pos++
			break
		}
		p.pos++ // ,
	}
	p.nodes += count
	n.packed = &packing{strs: strs}
	return n, nil
}

// arena is the one block of bytes the strings of a packed array are cut from, with
// room for all of them: only the strings without escapes go there, and they are never
// longer than the array's bytes. Bytes are only appended, never moved or changed, so
// the strings cut from it stay valid (as strings.Builder does).
type arena struct{ buf []byte }

// newArena returns an arena for the array at p.pos, which ends at end.
func newArena(p *jsonParser, end int) *arena {
	return &arena{buf: make([]byte, 0, end-p.pos)}
}

// str reads the string at p.pos, which lies in the array the arena was made for.
func (a *arena) str(p *jsonParser) (string, error) {
	s0 := p.pos
	escaped, err := p.skipStr()
	if err != nil {
		return "", err
	}
	if escaped {
		return p.unescape(s0, p.data[s0:p.pos])
	}
	b := p.data[s0+1 : p.pos-1]
	if len(b) == 0 || len(a.buf)+len(b) > cap(a.buf) {
		return string(b), nil // empty, or (never) no room left: a copy of its own
	}
	off := len(a.buf)
	a.buf = append(a.buf, b...)
	return unsafe.String(&a.buf[off], len(b)), nil
}

// packRecords reads the array at p.pos, of count records of members members in all
// ending at end (recordItems), into n as a packed array of records. Values without
// escapes share one block of bytes (arena); each distinct key is kept once. It returns nil, and leaves
// p.pos where it was, when an item has a duplicate key: then the array is parsed item
// by item, which reports or keeps the duplicate as the options say.
func (p *jsonParser) packRecords(n *Node, count, members, end int) (*Node, error) {
	start := p.pos
	pk := &packing{shape: make([]int32, 0, count), start: make([]int32, 0, count), vals: make([]string, 0, members)}
	arena := newArena(p, end)
	names := map[string]string{} // each distinct key once
	shapes := map[string]int32{} // shape indexes by their keys, length-prefixed
	var keys []string
	var sig []byte
	last := -1
	p.pos++ // [
	for {
		p.ws()
		p.pos++ // {
		p.ws()
		keys = keys[:0]
		first := len(pk.vals)
		for p.data[p.pos] != '}' {
			if len(keys) > 0 {
				p.pos++ // ,
				p.ws()
			}
			k0 := p.pos
			escaped, err := p.skipStr()
			if err != nil {
				return nil, err
			}
			raw := p.data[k0+1 : p.pos-1]
			if escaped {
				s, err := p.unescape(k0, p.data[k0:p.pos])
				if err != nil {
					return nil, err
				}
				raw = []byte(s)
			}
			key, ok := names[string(raw)]
			if !ok {
				key = string(raw)
				names[key] = key
			}
			for _, k := range keys {
				if k == key {
					p.pos = start
					return nil, nil
				}
			}
			keys = append(keys, key)
			p.ws()
			p.pos++ // :
			p.ws()
			v, err := arena.str(p)
			if err != nil {
				return nil, err
			}
			pk.vals = append(pk.vals, v)
			p.ws()
		}
		p.pos++ // }
		if last < 0 || !slices.Equal(keys, pk.shapes[last]) {
			sig = sig[:0]
			for _, k := range keys {
				sig = binary.AppendUvarint(sig, uint64(len(k)))
				sig = append(sig, k...)
			}
			i, ok := shapes[string(sig)]
			if !ok {
				i = int32(len(pk.shapes))
				pk.shapes = append(pk.shapes, slices.Clone(keys))
				shapes[string(sig)] = i
			}
			last = int(i)
		}
		pk.shape = append(pk.shape, int32(last))
		pk.start = append(pk.start, int32(first))
		p.ws()
		if p.data[p.pos] == ']' {
			p.pos++
			break
		}
		p.pos++ // ,
	}
	p.nodes += count + members
	n.packed = pk
	return n, nil
}

// str reads a string starting at the opening quote.
func (p *jsonParser) str() (string, error) {
	start := p.pos
	escaped, err := p.skipStr()
	if err != nil {
		return "", err
	}
	raw := p.data[start:p.pos]
	if !escaped {
		return string(raw[1 : len(raw)-1]), nil
	}
	return p.unescape(start, raw)
}

// unescape decodes the string raw, which starts at offset start and has escapes.
func (p *jsonParser) unescape(start int, raw []byte) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", p.fail(start, "bad string escape")
	}
	return s, nil
}

// skipStr moves past the string starting at the opening quote, checking all of it but
// its escapes (unescape does), and reports whether it has any.
func (p *jsonParser) skipStr() (escaped bool, err error) {
	start := p.pos
	p.pos++
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return escaped, nil
		case c == '\\':
			escaped = true
			p.pos += 2
		case c < 0x20:
			return false, p.fail(p.pos, "control character in string")
		default:
			p.pos++
		}
	}
	return false, p.fail(start, "unterminated string")
}

// number reads a JSON number, checking its grammar.
func (p *jsonParser) number() (*Node, error) {
	start := p.pos
	d := p.data
	i := p.pos
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	default:
		p.pos = i
		return nil, p.unexpected()
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			p.pos = i
			return nil, p.unexpected()
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			p.pos = i
			return nil, p.unexpected()
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	lit := string(d[start:i])
	f, _ := strconv.ParseFloat(lit, 64) // out of range keeps ±Inf
	p.pos = i
	return p.newNode(Node{Kind: KindNumber, Str: lit, Num: f, Loc: p.locAt(start)}), nil
}
