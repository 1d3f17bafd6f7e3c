package transport

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/elicitty/elicitty/config"
	"github.com/elicitty/elicitty/internal/jsonrpcio"
	"github.com/elicitty/elicitty/internal/process"
	"github.com/elicitty/elicitty/internal/safe"
	"github.com/elicitty/elicitty/transport/wire"
)

// startStdio starts srv's command with our pipes and returns the process and an
// mcp.Transport reading its filtered stdout. The process is registered in procs (nil:
// none) until it ends. The tap sees every message as the bytes on the pipes, in the
// goroutines that read and write them (no hop of its own), and is told about responses
// dropped unread (too large, undecodable). lsp is closed when stdout carried a
// Content-Length header line: the server frames messages as LSP does, not as
// newline-delimited JSON.
func startStdio(srv config.Server, log *wire.Log, procs *process.Procs, tp *tap) (p *process.Proc, lsp <-chan struct{}, t mcp.Transport, err error) {
	pr, pw := io.Pipe()
	lspSeen := make(chan struct{})
	var lspOnce sync.Once
	onLSP := func() { lspOnce.Do(func() { close(lspSeen) }) }
	p, err = process.Start(srv, log, procs, func(out io.Reader) {
		filterLines(out, pw, srv.Name, log, tp.dropFrame, onLSP, tp.inRaw)
	})
	if err != nil {
		return nil, nil, nil, err
	}
	stdin := p.Stdin()
	// filterLines enforces jsonrpcio.MaxFrame; go-sdk's own cap must not cut first.
	iot := &mcp.IOTransport{Reader: pr, Writer: &tapWriter{w: stdin, tap: tp}, MaxLineLength: jsonrpcio.MaxFrame + 64<<10}
	inject := func(m jsonrpc.Message) bool {
		b, err := jsonrpc.EncodeMessage(m)
		if err != nil {
			return false
		}
		_, err = pw.Write(append(b, '\n')) // io.Pipe writes never interleave
		return err == nil
	}
	return p, lspSeen, &tapTransport{inner: iot, tap: tp, inject: inject}, nil
}

// filterLines copies JSON-RPC lines from r to w and logs and skips every other line
// (banners, debug output, JSON logs), so a chatty server does not kill the session
// (docs/protocol.md, "Transports"). Every line is read in at most jsonrpcio.MaxFrame bytes: a longer one,
// or a JSON-RPC message that cannot be decoded (nested too deep), is dropped. When its
// id can be told, drop is told (a response or a request) and returns a message to pass
// on in its place, or nil (tap.dropFrame).
//
// in (nil: none) sees each JSON-RPC message as its bytes and envelope and returns the
// bytes to pass on, or nil to drop it (the tap's inRaw); a batch is passed on as its
// messages, one a line.
func filterLines(r io.Reader, w *io.PipeWriter, server string, log *wire.Log, drop func(id jsonrpc.ID, request bool, reason string) []byte, onLSP func(), in func([]byte, *jsonrpcio.Envelope) []byte) {
	fr := jsonrpcio.NewLineReader(r, jsonrpcio.MaxFrame)
	dropFrame := func(frame []byte, reason string) {
		id, isReq, ok := jsonrpcio.FrameID(frame)
		if !ok || drop == nil {
			log.Notef(server, "dropped a stdout message: %s", reason)
			return
		}
		if standIn := drop(id, isReq, reason); standIn != nil {
			_, _ = w.Write(append(standIn, '\n')) // a closed reader: the loop below ends too
		}
	}
	// pass hands one message to in and writes what it returns; false when the reader
	// is gone (then the rest is drained, so the server never blocks on stdout).
	pass := func(msg []byte, env *jsonrpcio.Envelope) bool {
		if in != nil {
			if msg = in(msg, env); msg == nil {
				return true
			}
		}
		if _, werr := w.Write(append(msg, '\n')); werr != nil {
			_ = fr.Drain()
			return false
		}
		return true
	}
	for {
		line, tooLong, err := fr.Next()
		trimmed := bytes.TrimSpace(line)
		switch {
		case tooLong:
			dropFrame(trimmed, frameTooLarge())
		case len(trimmed) == 0:
		case trimmed[0] == '{':
			env, derr := jsonrpcio.ParseEnvelope(trimmed)
			switch {
			case derr == nil:
				env.Owned = jsonrpcio.Owned(trimmed)
				if !pass(trimmed, &env) {
					return
				}
			case errors.Is(derr, jsonrpcio.ErrVersion):
				log.Notef(server, "skipped non-JSON-RPC stdout line: %q", safe.Cut(string(trimmed), 200))
			case bytes.Contains(trimmed[:min(len(trimmed), 256)], []byte(`"jsonrpc"`)):
				dropFrame(trimmed, "not valid JSON: "+derr.Error())
			default:
				log.Notef(server, "skipped non-JSON stdout line: %q", safe.Cut(string(trimmed), 200))
			}
		case trimmed[0] == '[':
			rpc, derr := isJSONRPC(trimmed)
			switch {
			case derr != nil:
				log.Notef(server, "skipped non-JSON stdout line: %q", safe.Cut(string(trimmed), 200))
			case !rpc:
				log.Notef(server, "skipped non-JSON-RPC stdout line: %q", safe.Cut(string(trimmed), 200))
			default:
				var batch []json.RawMessage
				_ = json.Unmarshal(trimmed, &batch) // isJSONRPC decoded it
				for _, m := range batch {
					env, derr := jsonrpcio.ParseEnvelope(m)
					if derr != nil {
						dropFrame(m, "not valid JSON: "+derr.Error())
						continue
					}
					if !pass(m, &env) {
						return
					}
				}
			}
		default:
			if onLSP != nil && isContentLength(trimmed) {
				onLSP()
			}
			log.Notef(server, "skipped non-JSON stdout line: %q", safe.Cut(string(trimmed), 200))
		}
		if err != nil {
			w.CloseWithError(io.EOF)
			return
		}
	}
}

// isContentLength reports whether line is an LSP-style "Content-Length: N" header.
func isContentLength(line []byte) bool {
	name, value, ok := bytes.Cut(line, []byte(":"))
	if !ok || !bytes.EqualFold(bytes.TrimSpace(name), []byte("content-length")) {
		return false
	}
	value = bytes.TrimSpace(value)
	for _, c := range value {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(value) > 0
}

// isJSONRPC reports whether a JSON line is a JSON-RPC 2.0 message (or a batch of them):
// an object whose "jsonrpc" member is "2.0". Loggers print JSON lines too
// ({"level":30,"msg":...}); those are not protocol and must not end the session. err is
// the decoding error of a line that is not valid JSON.
func isJSONRPC(line []byte) (bool, error) {
	var probe struct {
		JSONRPC string `json:"jsonrpc"`
	}
	if line[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(line, &batch); err != nil {
			return false, err
		}
		for _, m := range batch {
			if len(m) == 0 || m[0] != '{' || json.Unmarshal(m, &probe) != nil || probe.JSONRPC != "2.0" {
				return false, nil
			}
		}
		return len(batch) > 0, nil
	}
	if err := json.Unmarshal(line, &probe); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return false, nil // valid JSON, "jsonrpc" not a string
		}
		return false, err
	}
	return probe.JSONRPC == "2.0", nil
}
