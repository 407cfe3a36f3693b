// The server under test: the --server-cmd template, started per agent on a
// free port with its model calls sent to the replaying proxy.

package conformancerun

import (
	"context"
	"errors"
	"fmt"
	"github.com/adkproxy/adkproxy/internal/base/freeport"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/adkproxy/adkproxy/internal/base/adkapi"
	"github.com/adkproxy/adkproxy/internal/base/proxyopt"
)

// Placeholders of the server command.
const (
	AgentsDirPlaceholder = "{agents_dir}"
	PortPlaceholder      = "{port}"
)

// ErrServerCmd is wrapped by every error about the --server-cmd template.
var ErrServerCmd = errors.New("bad server command")

// CheckServerCmd checks that the template names the port, where the runner
// finds the server; {agents_dir} is optional (a server may serve a fixed
// folder).
func CheckServerCmd(cmd string) error {
	if strings.TrimSpace(cmd) == "" {
		return fmt.Errorf("%w: it is empty; e.g. 'npx adk api_server {agents_dir} -h 127.0.0.1 -p {port}'", ErrServerCmd)
	}
	if !strings.Contains(cmd, PortPlaceholder) {
		return fmt.Errorf("%w: %q has no %s: the runner starts the server on a free port and needs to tell it which", ErrServerCmd, cmd, PortPlaceholder)
	}
	return nil
}

// expand fills the template in: the agents folder shell-quoted, the port.
func expand(cmd, agentsDir string, port int) string {
	return strings.NewReplacer(AgentsDirPlaceholder, shellQuote(agentsDir), PortPlaceholder, strconv.Itoa(port)).Replace(cmd)
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// serverStartTimeout bounds how long a server may take to answer
// list-apps (ADK-JS bundles each agent file on first use).
const serverStartTimeout = 2 * time.Minute

// stopGrace is how long a server gets to exit after SIGTERM.
const stopGrace = 10 * time.Second

// server is one running server command.
type server struct {
	cmd    *exec.Cmd
	line   string
	client *adkapi.Client
	out    *tail
	exited chan struct{}
	err    error // the process's exit, once exited is closed
}

// startServer runs line (through sh -c) with GOOGLE_GEMINI_BASE_URL and
// GOOGLE_VERTEX_BASE_URL set to proxyURL, and waits until it answers
// GET {prefix}/list-apps on port.
func startServer(ctx context.Context, line string, port int, prefix, proxyURL string, hc *http.Client) (*server, error) {
	client, err := adkapi.New("http://127.0.0.1:"+strconv.Itoa(port), prefix)
	if err != nil {
		return nil, err
	}
	client.HTTPClient = hc
	cmd := exec.Command("sh", "-c", line)
	cmd.Env = serverEnv(proxyURL)
	setProcessGroup(cmd)
	s := &server{cmd: cmd, line: line, client: client, out: &tail{max: 16 << 10}, exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = s.out, s.out
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the server %q: %w", line, err)
	}
	go func() { s.err = cmd.Wait(); close(s.exited) }()

	wait, cancel := context.WithTimeout(ctx, serverStartTimeout)
	defer cancel()
	if err := client.WaitUp(wait, s.exited); err != nil {
		if errors.Is(err, adkapi.ErrNotServed) {
			s.stop()
			return nil, fmt.Errorf("the server %q answers, but not at %s/list-apps: %v", line, client.BaseURL+client.Prefix, err)
		}
		if errors.Is(err, adkapi.ErrStopped) {
			return nil, fmt.Errorf("the server %q exited (%v) before answering %s/list-apps; its output:\n%s", line, s.err, client.BaseURL+client.Prefix, s.out)
		}
		s.stop()
		return nil, fmt.Errorf("the server %q did not answer %s/list-apps within %v (%v); its output:\n%s", line, client.BaseURL+client.Prefix, serverStartTimeout, err, s.out)
	}
	return s, nil
}

// serverEnv is this process's environment with the model endpoints
// pointed at the proxy and, when no key is set, replay's placeholder key
// (SDKs refuse to start without one; replay sends it nowhere).
func serverEnv(proxyURL string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "GOOGLE_GEMINI_BASE_URL" || k == "GOOGLE_VERTEX_BASE_URL" {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "GOOGLE_GEMINI_BASE_URL="+proxyURL, "GOOGLE_VERTEX_BASE_URL="+proxyURL)
	if os.Getenv("GOOGLE_API_KEY") == "" && os.Getenv("GEMINI_API_KEY") == "" {
		env = append(env, "GOOGLE_API_KEY="+proxyopt.ReplayPlaceholderKey)
	}
	return env
}

// stop ends the server and everything it started: SIGTERM to its process
// group, SIGKILL after stopGrace.
func (s *server) stop() {
	signalGroup(s.cmd, false)
	select {
	case <-s.exited:
	case <-time.After(stopGrace):
		signalGroup(s.cmd, true)
		<-s.exited
	}
}

// loadError is the line of the server's output that says why agent did
// not load (ADK Go's launcher logs "Error loading agent at
// …/<agent>/root_agent.yaml: …" and serves the others), or "".
func (s *server) loadError(agent string) string {
	lines := strings.Split(s.out.String(), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		line := strings.TrimSpace(lines[i])
		if strings.Contains(strings.ToLower(line), "error") && strings.Contains(line, agent) {
			return line
		}
	}
	return ""
}

// freePort returns a loopback TCP port that was free a moment ago, below
// the ephemeral range so that no other listener is handed it meanwhile.
func freePort() (int, error) { return freeport.Pick() }

// tail keeps the last max bytes a process wrote.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
	cut bool
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b, t.cut = append(t.b[:0:0], t.b[len(t.b)-t.max:]...), true
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cut {
		return "…" + string(t.b)
	}
	return string(t.b)
}
