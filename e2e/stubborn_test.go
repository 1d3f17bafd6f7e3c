package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/elicitty/elicitty/demo"
)

// stubbornEnv makes the test binary a stubborn stdio server: it ignores SIGTERM,
// SIGHUP and SIGINT, outlives stdin EOF, and writes its pid into $stubbornDirEnv.
// Its value says how it behaves on stdin: "silent" never answers; "demo" is the demo
// server; "badinit" answers initialize with an error.
const (
	stubbornEnv    = "ELICITTY_TEST_STUBBORN"
	stubbornDirEnv = "ELICITTY_TEST_STUBBORN_DIR"
)

// stubbornServer is the test binary run as a stubborn server; it returns an exit code.
func stubbornServer(mode string) int {
	signal.Ignore(syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
	pidFile := filepath.Join(os.Getenv(stubbornDirEnv), strconv.Itoa(os.Getpid()))
	if err := os.WriteFile(pidFile, nil, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	switch mode {
	case "crash-once":
		// The demo server, except that the first tools/call of all its runs kills it.
		srv, err := demo.New(nil)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		marker := filepath.Join(os.Getenv(stubbornDirEnv), "crashed")
		pr, pw := io.Pipe()
		go func() {
			sc := bufio.NewScanner(os.Stdin)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				if strings.Contains(sc.Text(), `"tools/call"`) {
					if _, err := os.Stat(marker); err != nil {
						_ = os.WriteFile(marker, nil, 0o644)
						fmt.Fprintln(os.Stderr, "crashing on purpose")
						os.Exit(3)
					}
				}
				fmt.Fprintln(pw, sc.Text())
			}
			pw.Close()
		}()
		_ = srv.ServeStdio(context.Background(), pr, os.Stdout)
		return 0
	case "demo":
		srv, err := demo.New(nil)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		_ = srv.ServeStdio(context.Background(), os.Stdin, os.Stdout)
	case "badinit":
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			var msg struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal(sc.Bytes(), &msg) == nil && msg.ID != nil {
				fmt.Printf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32603,"message":"refused"}}`+"\n", msg.ID)
			}
		}
	}
	// stdin is closed (or never read): a polite server would exit now.
	time.Sleep(10 * time.Minute)
	return 0
}
