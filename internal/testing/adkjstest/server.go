// Package adkjstest runs ADK-JS's API server for tests, from the npm
// package pinned in e2e/adkserver: the command line, a free port, start
// and wait for /health, an environment without real keys.
package adkjstest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/adkproxy/adkproxy/internal/base/freeport"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/internal/base/adkapi"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// PackageDir is the npm package that pins @google/adk-devtools, relative
// to the repository root.
const PackageDir = "e2e/adkserver"

// startDeadline only keeps a server that never comes up from hanging a
// test forever.
const startDeadline = 2 * time.Minute

// ServerCommand returns the command line that serves agentsDir on
// 127.0.0.1:port with the pinned api_server, or skips the test (fails it
// under CI) when node or the package is not installed.
func ServerCommand(t testing.TB, agentsDir string, port int) []string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		testutil.Require(t, "node (Node.js 20 or newer)")
	}
	entry := filepath.Join(testutil.RepoRoot(), PackageDir, "node_modules", "@google", "adk-devtools", "dist", "esm", "cli_entrypoint.js")
	if _, err := os.Stat(entry); err != nil {
		testutil.Require(t, entry+" (run 'make npm-deps')")
	}
	return []string{node, entry, "api_server", agentsDir, "-h", "127.0.0.1", "-p", strconv.Itoa(port)}
}

// ServerCmdTemplate is ServerCommand as a template for `adkproxy
// conformance --server-cmd`: {agents_dir} and {port} left to fill in, the
// paths shell-quoted.
func ServerCmdTemplate(t testing.TB) string {
	t.Helper()
	args := ServerCommand(t, "{agents_dir}", 0)
	return "'" + args[0] + "' '" + args[1] + "' api_server {agents_dir} -h 127.0.0.1 -p {port}"
}

// FreePort returns a loopback TCP port that was free a moment ago, below
// the ephemeral range (package freeport): a port a listener on port 0 gave
// back was handed to a parallel test's scripted Gemini, which then answered
// in the ADK server's place.
func FreePort(t testing.TB) int {
	t.Helper()
	port, err := freeport.Pick()
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// Server is a running ADK-JS API server.
type Server struct {
	// URL is the server's base URL, http://127.0.0.1:PORT.
	URL string
	cmd *exec.Cmd
	out *syncBuffer
}

// Output is what the server has printed so far (stdout and stderr).
func (s *Server) Output() string { return s.out.String() }

// StartServer starts ADK-JS's api_server on agentsDir with its model calls
// sent to geminiBaseURL (GOOGLE_GEMINI_BASE_URL, a placeholder key), waits
// until it answers, and stops it when the test ends.
func StartServer(t testing.TB, agentsDir, geminiBaseURL string) *Server {
	t.Helper()
	port := FreePort(t)
	args := ServerCommand(t, agentsDir, port)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(Env(), "GOOGLE_GEMINI_BASE_URL="+geminiBaseURL, "GOOGLE_API_KEY=placeholder-key-for-tests")
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %v: %v", args, err)
	}
	s := &Server{URL: "http://127.0.0.1:" + strconv.Itoa(port), cmd: cmd, out: out}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	if err := WaitHealthy(t.Context(), s.URL, exited); err != nil {
		t.Fatalf("ADK-JS api_server on %s: %v\noutput:\n%s", agentsDir, err, out.String())
	}
	return s
}

// WaitHealthy waits until the server at url answers list-apps, the
// process reports its end on exited (nil: not watched; a value received
// there is consumed), or startDeadline passes.
func WaitHealthy(ctx context.Context, url string, exited <-chan error) error {
	c, err := adkapi.New(url, "")
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, startDeadline)
	defer cancel()
	stopped := make(chan struct{})
	var exitErr error
	go func() {
		select {
		case exitErr = <-exited:
			close(stopped)
		case <-ctx.Done():
		}
	}()
	if err := c.WaitUp(ctx, stopped); err != nil {
		if errors.Is(err, adkapi.ErrStopped) {
			return fmt.Errorf("%s: the server exited (%v) before answering: %w", url, exitErr, err)
		}
		return fmt.Errorf("%s: %w", url, err)
	}
	return nil
}

// Env is this process's environment without anything that would send a
// server's model calls elsewhere or authenticate them for real.
func Env() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if testutil.ModelEnv[k] {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// syncBuffer collects a process's output while tests read it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
