package proxy

import (
	"bufio"
	"context"
	"io"
	"os"
	"testing"
)

// The messages of one round trip: a tools/call and its result, typical sizes.
const (
	benchRequest = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"elicitation proxy benchmark","limit":10},"_meta":{"progressToken":"p-1"}}}`
	benchResult  = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ten results, each a line of text long enough to look like a real answer from a real server"}],"isError":false}}`
)

// echoServer answers every line read from r with benchResult on w, until r ends.
func echoServer(r io.Reader, w io.WriteCloser) {
	defer w.Close()
	br := bufio.NewReader(r)
	out := []byte(benchResult + "\n")
	for {
		if _, err := br.ReadSlice('\n'); err != nil {
			return
		}
		if _, err := w.Write(out); err != nil {
			return
		}
	}
}

// pipe returns an OS pipe, closed at the end of the benchmark.
func pipe(b *testing.B) (*os.File, *os.File) {
	r, w, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}

// roundTrips sends b.N requests on w and reads each result from r.
func roundTrips(b *testing.B, w io.Writer, r io.Reader) {
	br := bufio.NewReader(r)
	req := []byte(benchRequest + "\n")
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := w.Write(req); err != nil {
			b.Fatal(err)
		}
		if _, err := br.ReadSlice('\n'); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
}

// BenchmarkRoundTrip compares one request and its result over OS pipes straight to a
// server ("direct") and through the proxy ("proxy"), which forwards two messages per
// round trip: the per-message overhead is half the difference (README, "Benchmarks").
func BenchmarkRoundTrip(b *testing.B) {
	b.Run("direct", func(b *testing.B) {
		toSrvR, toSrvW := pipe(b)
		fromSrvR, fromSrvW := pipe(b)
		go echoServer(toSrvR, fromSrvW)
		roundTrips(b, toSrvW, fromSrvR)
	})
	b.Run("proxy", func(b *testing.B) {
		hostInR, hostInW := pipe(b)
		hostOutR, hostOutW := pipe(b)
		toSrvR, toSrvW := pipe(b)
		fromSrvR, fromSrvW := pipe(b)
		go echoServer(toSrvR, fromSrvW)
		p := New(NewPipe(fromSrvR, toSrvW, 0, nil), Options{Server: "bench"})
		done := make(chan error, 1)
		go func() { done <- p.Run(context.Background(), hostInR, hostOutW) }()
		roundTrips(b, hostInW, hostOutR)
		hostInW.Close()
		<-done
	})
}
