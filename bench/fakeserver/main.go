// Command fakeserver is a stdio MCP server that scales what the bench scripts measure:
//
//	fakeserver [-tools N] [-delay D] [-enum N [-titled]] [-fields N] [-pending N] [-stderr N]
//
// -tools lists N tools (tool-0 ... tool-N-1, each with a small input schema; tools/call
// of one answers "ok"); -delay waits D before answering anything (a slow server); -enum
// adds the tool "pick" whose elicitation chooses among N options, an enum or, with
// -titled, a oneOf of {const, title} choices (titled "Option N"); -fields adds the tool
// "fill" whose elicitation is a form of N optional text fields; -pending adds the tool
// "flood" that sends N elicitations at once and waits for all of them; -stderr writes N
// lines on stderr first (they fill the client's log).
//
// It measures the client, so it costs next to nothing itself: it speaks line-delimited
// JSON-RPC on stdin and stdout by hand (no MCP SDK), and it encodes each tools/list page
// (1,000 tools each, the cursor is the index of the next tool) once, on the first request
// of it or just after answering the request before it (initialize for the first page), so
// that initialize is answered at once and the next page is ready while the client reads
// the last. The pick tool's schema is encoded once, before it serves. It answers initialize (echoing a protocol version it
// knows), ping, tools/list and tools/call, ignores notifications, and answers any other
// method with "method not found".
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// pageSize is the tools of one tools/list page (go-sdk's default).
const pageSize = 1000

// Protocol versions initialize echoes; any other is answered with the newest.
var versions = []string{"2025-03-26", "2025-06-18", "2025-11-25"}

// toolSchema is the input schema of every tool-N.
const toolSchema = `{"type":"object","properties":{"text":{"type":"string","description":"Some text."},"n":{"type":"integer","minimum":0}}}`

func main() {
	tools := flag.Int("tools", 10, "number of tools to list")
	delay := flag.Duration("delay", 0, "wait this long before serving")
	enum := flag.Int("enum", 0, "options of the pick tool's enum (0: no pick tool)")
	titled := flag.Bool("titled", false, "the pick tool's options are a oneOf of {const, title}, not an enum")
	fields := flag.Int("fields", 0, "text fields of the fill tool's form (0: no fill tool)")
	pending := flag.Int("pending", 0, "elicitations the flood tool sends at once (0: no flood tool)")
	stderr := flag.Int("stderr", 0, "lines to write on stderr before serving")
	flag.Parse()
	if *stderr > 0 {
		w := bufio.NewWriter(os.Stderr)
		for i := range *stderr {
			fmt.Fprintf(w, "log line %d of %d: something happened\n", i+1, *stderr)
		}
		_ = w.Flush()
	}
	time.Sleep(*delay)
	s := &server{
		out:     bufio.NewWriterSize(os.Stdout, 1<<16),
		pages:   pages(*tools, *enum > 0, *fields > 0, *pending > 0),
		enum:    *enum,
		fields:  *fields,
		pending: *pending,
		waiting: map[string]chan reply{},
	}
	if *enum > 0 {
		s.pickSchema = pickSchema(*enum, *titled)
	}
	if *fields > 0 {
		s.fillSchema = fillSchema(*fields)
	}
	if err := s.serve(os.Stdin); err != nil {
		fmt.Fprintln(os.Stderr, "fakeserver:", err)
		os.Exit(1)
	}
}

// server is one client's connection.
type server struct {
	mu  sync.Mutex // guards out and version
	out *bufio.Writer

	pages      *toolPages // tools/list results, encoded on first use
	enum       int        // options of the pick tool (0: none)
	fields     int        // text fields of the fill tool (0: none)
	pending    int        // elicitations of the flood tool (0: none)
	pickSchema []byte     // the pick tool's requested schema, encoded
	fillSchema []byte     // the fill tool's requested schema, encoded
	version    string     // the protocol version initialize agreed on

	wmu     sync.Mutex // guards next and waiting
	next    int
	waiting map[string]chan reply // this server's requests by id, until answered
}

// message is any JSON-RPC message read from the client.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// reply is the client's answer to one of this server's requests.
type reply struct {
	result json.RawMessage
	err    json.RawMessage
}

// serve reads messages until the end of in, answering requests and routing responses.
func (s *server) serve(in io.Reader) error {
	r := bufio.NewReaderSize(in, 1<<20)
	for {
		line, err := r.ReadBytes('\n') // lines of any length
		if len(bytes.TrimSpace(line)) > 0 {
			s.handle(line)
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read: %w", err)
		}
	}
}

// handle acts on one message.
func (s *server) handle(line []byte) {
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		s.writeError(json.RawMessage("null"), -32700, "parse error")
		return
	}
	hasID := len(m.ID) > 0 && string(m.ID) != "null"
	switch {
	case m.Method == "" && hasID: // a response to one of ours
		s.wmu.Lock()
		ch := s.waiting[string(m.ID)]
		delete(s.waiting, string(m.ID))
		s.wmu.Unlock()
		if ch != nil {
			ch <- reply{result: m.Result, err: m.Error}
		}
	case !hasID: // a notification
	case m.Method == "initialize":
		s.initialize(m)
	case m.Method == "ping":
		s.writeResult(m.ID, []byte(`{}`))
	case m.Method == "tools/list":
		s.list(m)
	case m.Method == "tools/call":
		s.call(m)
	default:
		s.writeError(m.ID, -32601, "method not found: "+strconv.Quote(m.Method))
	}
}

// initialize answers with the client's protocol version when it is known, else the newest.
func (s *server) initialize(m message) {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(m.Params, &p)
	v := versions[len(versions)-1]
	for _, known := range versions {
		if p.ProtocolVersion == known {
			v = known
		}
	}
	s.mu.Lock()
	s.version = v
	s.mu.Unlock()
	s.writeResult(m.ID, []byte(`{"capabilities":{"tools":{"listChanged":true}},"protocolVersion":"`+v+
		`","serverInfo":{"name":"fakeserver","version":"0.0.0"}}`))
	s.pages.page(0) // while the client sends initialized and its first tools/list
}

// list answers tools/list with the page its cursor starts.
func (s *server) list(m message) {
	var p struct {
		Cursor string `json:"cursor"`
	}
	_ = json.Unmarshal(m.Params, &p)
	page := 0
	if p.Cursor != "" {
		n, err := strconv.Atoi(p.Cursor)
		if err != nil || n < 0 || n%pageSize != 0 || n/pageSize >= s.pages.len() {
			s.writeError(m.ID, -32602, "invalid cursor "+strconv.Quote(p.Cursor))
			return
		}
		page = n / pageSize
	}
	s.writeResult(m.ID, s.pages.page(page))
	if page+1 < s.pages.len() {
		s.pages.page(page + 1) // while the client reads this one
	}
}

// call answers tools/call: tool-N at once, pick and flood once the client has answered
// their elicitations (in their own goroutine, so that the answers can be read).
func (s *server) call(m message) {
	var p struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(m.Params, &p)
	switch {
	case strings.HasPrefix(p.Name, "tool-"):
		s.writeResult(m.ID, textResult("ok"))
	case p.Name == "pick" && s.enum > 0:
		go s.ask(m.ID, "Pick one", s.pickSchema)
	case p.Name == "fill" && s.fields > 0:
		go s.ask(m.ID, "Fill the form", s.fillSchema)
	case p.Name == "flood" && s.pending > 0:
		go s.flood(m.ID)
	default:
		s.writeError(m.ID, -32602, "unknown tool "+strconv.Quote(p.Name))
	}
}

// ask sends one elicitation and answers the call id with its action.
func (s *server) ask(id json.RawMessage, message string, schema []byte) {
	action, err := s.elicit(message, schema)
	if err != nil {
		s.writeError(id, -32603, err.Error())
		return
	}
	s.writeResult(id, textResult(action))
}

// flood sends the flood tool's elicitations at once and answers with their actions.
func (s *server) flood(id json.RawMessage) {
	schema := []byte(`{"type":"object","properties":{"ok":{"type":"boolean"}}}`)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var actions []string
	for i := range s.pending {
		wg.Go(func() {
			action, err := s.elicit("Request "+strconv.Itoa(i), schema)
			if err != nil {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			actions = append(actions, action)
		})
	}
	wg.Wait()
	s.writeResult(id, textResult(strings.Join(actions, " ")))
}

// elicit sends elicitation/create with message and schema and waits for the action.
func (s *server) elicit(message string, schema []byte) (string, error) {
	ch := make(chan reply, 1)
	s.wmu.Lock()
	s.next++
	id := strconv.Itoa(s.next)
	s.waiting[id] = ch
	s.wmu.Unlock()
	s.mu.Lock()
	mode := ""
	if s.version >= "2025-11-25" {
		mode = `"mode":"form",`
	}
	s.mu.Unlock()
	msg, _ := json.Marshal(message)
	b := make([]byte, 0, len(schema)+len(msg)+128)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"method":"elicitation/create","params":{`...)
	b = append(b, mode...)
	b = append(b, `"message":`...)
	b = append(b, msg...)
	b = append(b, `,"requestedSchema":`...)
	b = append(b, schema...)
	b = append(b, "}}\n"...)
	s.write(b)
	r := <-ch
	if len(r.err) > 0 && string(r.err) != "null" {
		return "", fmt.Errorf("elicitation failed: %s", r.err)
	}
	var res struct {
		Action string `json:"action"`
	}
	if err := json.Unmarshal(r.result, &res); err != nil {
		return "", fmt.Errorf("elicitation result: %w", err)
	}
	return res.Action, nil
}

// writeResult writes a response with the encoded result, straight to stdout (a page
// of tools is not copied into a line first).
func (s *server) writeResult(id json.RawMessage, result []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, _ = s.out.WriteString(`{"jsonrpc":"2.0","id":`)
	_, _ = s.out.Write(id)
	_, _ = s.out.WriteString(`,"result":`)
	_, _ = s.out.Write(result)
	_, _ = s.out.WriteString("}\n")
	_ = s.out.Flush()
}

// writeError writes an error response.
func (s *server) writeError(id json.RawMessage, code int, message string) {
	msg, _ := json.Marshal(message)
	b := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s}}`+"\n", id, code, msg)
	s.write(b)
}

// write writes one whole line to stdout.
func (s *server) write(b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, _ = s.out.Write(b)
	_ = s.out.Flush()
}

// textResult is a tools/call result of one text.
func textResult(text string) []byte {
	t, _ := json.Marshal(text)
	return []byte(`{"content":[{"type":"text","text":` + string(t) + `}]}`)
}

// toolPages is the tools/list results, each page encoded on its first use.
type toolPages struct {
	n      int     // tool-0 ... tool-n-1
	extras []extra // then these
	pages  []func() []byte
}

// extra is a tool listed after tool-N.
type extra struct{ name, desc string }

// pages returns the tools/list results: tool-0 ... tool-n-1, then pick, fill and flood
// when asked for, pageSize tools a page, each but the last with the cursor of the next.
// Nothing is encoded yet.
func pages(n int, pick, fill, flood bool) *toolPages {
	p := &toolPages{n: n}
	if pick {
		p.extras = append(p.extras, extra{"pick", "Asks to pick one option."})
	}
	if fill {
		p.extras = append(p.extras, extra{"fill", "Asks to fill a form of many fields."})
	}
	if flood {
		p.extras = append(p.extras, extra{"flood", "Sends many elicitations at once."})
	}
	total := n + len(p.extras)
	for from := 0; from < total || from == 0; from += pageSize {
		p.pages = append(p.pages, sync.OnceValue(func() []byte { return p.encode(from, min(from+pageSize, total), total) }))
	}
	return p
}

// len is the number of pages.
func (p *toolPages) len() int { return len(p.pages) }

// page returns page i, encoding it the first time.
func (p *toolPages) page(i int) []byte { return p.pages[i]() }

// encode encodes the page of the tools from ... to-1 of total.
func (p *toolPages) encode(from, to, total int) []byte {
	n := p.n
	b := make([]byte, 0, (to-from)*192+64)
	b = append(b, `{"tools":[`...)
	for i := from; i < to; i++ {
		if i > from {
			b = append(b, ',')
		}
		if i < n {
			b = append(b, `{"name":"tool-`...)
			b = strconv.AppendInt(b, int64(i), 10)
			b = append(b, `","description":"Tool number `...)
			b = strconv.AppendInt(b, int64(i), 10)
			b = append(b, " of "...)
			b = strconv.AppendInt(b, int64(n), 10)
			b = append(b, `.","inputSchema":`...)
			b = append(b, toolSchema...)
			b = append(b, '}')
			continue
		}
		e := p.extras[i-n]
		b = append(b, `{"name":"`+e.name+`","description":"`+e.desc+`","inputSchema":{"type":"object"}}`...)
	}
	b = append(b, ']')
	if to < total {
		b = append(b, `,"nextCursor":"`...)
		b = strconv.AppendInt(b, int64(to), 10)
		b = append(b, '"')
	}
	b = append(b, '}')
	return b
}

// pickSchema encodes the pick tool's requested schema: one required string "pick"
// titled "Pick one", among option-0 ... option-n-1, an enum or (titled) a oneOf of
// {const, title} choices titled "Option 0" ... "Option n-1".
func pickSchema(n int, titled bool) []byte {
	b := make([]byte, 0, n*48+128)
	b = append(b, `{"type":"object","properties":{"pick":{"type":"string","title":"Pick one",`...)
	if titled {
		b = append(b, `"oneOf":[`...)
	} else {
		b = append(b, `"enum":[`...)
	}
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		if titled {
			b = append(b, `{"const":`...)
		}
		b = append(b, `"option-`...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, '"')
		if titled {
			b = append(b, `,"title":"Option `...)
			b = strconv.AppendInt(b, int64(i), 10)
			b = append(b, `"}`...)
		}
	}
	b = append(b, `]}},"required":["pick"]}`...)
	return b
}

// fillSchema is the fill tool's requested schema: n optional text fields field-0 ...
// field-n-1, titled "Field 0" ... in that order.
func fillSchema(n int) []byte {
	b := []byte(`{"type":"object","properties":{`)
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `"field-`...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, `":{"type":"string","title":"Field `...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, `"}`...)
	}
	return append(b, "}}"...)
}
