// `adkproxy mcp -- SERVER...`: the stdio MCP server between an agent's MCP
// client and adkproxy. Every request and notification the client writes
// goes to the running proxy as one POST (proxyopt.ControlMCP+NAME), and
// the proxy's answer is what the client reads. While recording, the proxy
// fetches that answer from this process's loopback relay, which writes the
// message to the real server and waits for the response with its id; in
// replay the proxy answers from the cassette and no server is started.
// What the server sends unasked (notifications, its own requests) and the
// client's answers to them pass straight through while recording and are
// not recorded.

package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/adkproxy/adkproxy/internal/base/proxyopt"
)

// Options configure Run; the zero value of each field is its default.
type Options struct {
	// Command is the server and its arguments (required).
	Command []string
	// Name is the server's name in the cassette; by default it is derived
	// from the command (ServerName).
	Name string
	// ProxyURL is the proxy's address; by default Find's.
	ProxyURL string
	// Cassette, when set, is sent as X-Adkproxy-Cassette with every message.
	Cassette string
	Stdin    io.Reader
	Stdout   io.Writer
	Stderr   io.Writer
}

// Exit statuses besides the server's own (sysexits.h).
const (
	exitUsage       = 64
	exitUnavailable = 69
	exitNoServer    = 127
)

// maxMessage bounds one line of JSON-RPC.
const maxMessage = 64 << 20

// Run relays the client on Stdin/Stdout to the server through the proxy
// until the client closes its side, and returns the server's exit status
// (0 in replay). Without a proxy it runs the server unrecorded, saying so.
func Run(ctx context.Context, o Options) (int, error) {
	if len(o.Command) == 0 {
		return exitUsage, errors.New("adkproxy mcp needs the server's command after --, as in: adkproxy mcp -- node server.js")
	}
	if o.Name == "" {
		o.Name = ServerName(o.Command)
	}
	if !validName(o.Name) {
		return exitUsage, fmt.Errorf("MCP server name %q: use lower-case letters, digits, '.', '_' and '-' (at most 63), with --name", o.Name)
	}
	url := o.ProxyURL
	if url == "" {
		var err error
		if url, err = Find(); err != nil {
			if !errors.Is(err, errNoProxy) {
				return exitUsage, err
			}
			fmt.Fprintf(o.Stderr, "adkproxy mcp: %v; running %s unrecorded\n", err, o.Command[0])
			return direct(ctx, o)
		}
	}
	c := &relay{o: o, endpoint: strings.TrimSuffix(url, "/") + proxyopt.ControlMCP + o.Name, client: &http.Client{}}
	mode, err := c.mode(ctx, strings.TrimSuffix(url, "/"))
	if err != nil {
		return exitUnavailable, err
	}
	if mode == "replay" {
		return c.replay(ctx)
	}
	return c.record(ctx)
}

type relay struct {
	o        Options
	endpoint string
	client   *http.Client
	upstream string // the loopback relay's URL while recording

	outMu sync.Mutex // one message at a time on the client's stdout
}

// mode asks the proxy's health endpoint whether it records or replays.
func (c *relay) mode(ctx context.Context, base string) (string, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+proxyopt.ControlHealth, nil)
	resp, err := c.client.Do(req)
	if err != nil {
		return "", fmt.Errorf("adkproxy mcp: the proxy at %s does not answer (%v): is adkproxy record or replay still running?", base, err)
	}
	defer resp.Body.Close()
	var h struct {
		Mode string `json:"mode"`
	}
	if resp.StatusCode != http.StatusOK || jsonDecode(resp.Body, &h) != nil || h.Mode == "" {
		return "", fmt.Errorf("adkproxy mcp: %s%s answered %s, not adkproxy's health", base, proxyopt.ControlHealth, resp.Status)
	}
	return h.Mode, nil
}

// toClient writes one message to the client.
func (c *relay) toClient(msg []byte) {
	c.outMu.Lock()
	defer c.outMu.Unlock()
	c.o.Stdout.Write(append(bytes.TrimSpace(msg), '\n'))
}

// post sends one message to the proxy and returns its answer.
func (c *relay) post(ctx context.Context, msg []byte) (int, []byte, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(msg))
	req.Header.Set("Content-Type", "application/json")
	if c.upstream != "" {
		req.Header.Set(proxyopt.HeaderMCPUpstream, c.upstream)
	}
	if c.o.Cassette != "" {
		req.Header.Set("X-Adkproxy-Cassette", c.o.Cassette)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxMessage))
	return resp.StatusCode, body, err
}

// forward posts a client message and gives the client the answer: a
// request's response, or a JSON-RPC error naming what the proxy said.
func (c *relay) forward(ctx context.Context, msg []byte, k kind, id string) {
	status, body, err := c.post(ctx, msg)
	if k != kindRequest {
		if err != nil || status >= 300 {
			fmt.Fprintf(c.o.Stderr, "adkproxy mcp: %s: %s\n", c.o.Name, failure(status, body, err))
		}
		return
	}
	if err == nil && status == http.StatusOK && len(bytes.TrimSpace(body)) > 0 {
		c.toClient(body)
		return
	}
	why := failure(status, body, err)
	fmt.Fprintf(c.o.Stderr, "adkproxy mcp: %s: %s\n", c.o.Name, why)
	c.toClient(errorResponse(id, "adkproxy: "+strings.TrimPrefix(why, "adkproxy: ")))
}

func failure(status int, body []byte, err error) string {
	if err != nil {
		return err.Error()
	}
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if jsonDecode(bytes.NewReader(body), &e) == nil && e.Error.Message != "" {
		return e.Error.Message
	}
	return fmt.Sprintf("the proxy answered %d %s", status, bytes.TrimSpace(body))
}

// lines calls fn with each message the client writes, until it closes
// its side.
func lines(r io.Reader, fn func([]byte)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxMessage)
	for sc.Scan() {
		if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
			fn(bytes.Clone(line))
		}
	}
	return sc.Err()
}

// replay answers every request from the cassette through the proxy.
func (c *relay) replay(ctx context.Context) (int, error) {
	var wg sync.WaitGroup
	err := lines(c.o.Stdin, func(msg []byte) {
		k, id := classify(msg)
		switch k {
		case kindRequest:
			wg.Add(1)
			go func() { defer wg.Done(); c.forward(ctx, msg, k, id) }()
		case kindNotification:
			c.forward(ctx, msg, k, id)
		default:
			// An answer to a server request: replay has no server to take it.
		}
	})
	wg.Wait()
	if err != nil {
		return 1, fmt.Errorf("adkproxy mcp: reading the client: %v", err)
	}
	return 0, nil
}

// record starts the server and relays every message through the proxy,
// which fetches the answer from the loopback relay.
func (c *relay) record(ctx context.Context) (int, error) {
	cmd := exec.CommandContext(ctx, c.o.Command[0], c.o.Command[1:]...)
	cmd.Stderr = c.o.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return 1, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 1, err
	}
	if err := cmd.Start(); err != nil {
		return exitNoServer, fmt.Errorf("adkproxy mcp: cannot start %s: %v", c.o.Command[0], err)
	}
	srv := &server{in: stdin, waiting: map[string]chan []byte{}, done: make(chan struct{})}
	go func() {
		lines(stdout, func(msg []byte) {
			if k, id := classify(msg); k == kindResponse && srv.deliver(id, msg) {
				return
			}
			c.toClient(msg) // unasked: passed on, not recorded
		})
		close(srv.done)
	}()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		cmd.Process.Kill()
		return 1, err
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 30 * time.Second}
	go hs.Serve(ln)
	defer hs.Close()
	c.upstream = "http://" + ln.Addr().String() + "/"

	var wg sync.WaitGroup
	readErr := lines(c.o.Stdin, func(msg []byte) {
		k, id := classify(msg)
		switch k {
		case kindRequest:
			wg.Add(1)
			go func() { defer wg.Done(); c.forward(ctx, msg, k, id) }()
		case kindNotification:
			c.forward(ctx, msg, k, id)
		default:
			srv.write(msg) // the client's answer to the server, or what neither reads
		}
	})
	wg.Wait()
	stdin.Close()
	waited := make(chan error, 1)
	go func() { <-srv.done; waited <- cmd.Wait() }()
	var werr error
	select {
	case werr = <-waited:
	case <-time.After(5 * time.Second):
		cmd.Process.Kill()
		werr = <-waited
	}
	if readErr != nil {
		return 1, fmt.Errorf("adkproxy mcp: reading the client: %v", readErr)
	}
	var exit *exec.ExitError
	if errors.As(werr, &exit) {
		return exit.ExitCode(), nil
	}
	return 0, werr
}

// server is the loopback relay to the real server's stdin and stdout.
type server struct {
	inMu    sync.Mutex
	in      io.Writer
	mu      sync.Mutex
	waiting map[string]chan []byte
	done    chan struct{} // closed when the server's stdout ends
}

func (s *server) write(msg []byte) error {
	s.inMu.Lock()
	defer s.inMu.Unlock()
	_, err := s.in.Write(append(bytes.TrimSpace(msg), '\n'))
	return err
}

func (s *server) deliver(id string, msg []byte) bool {
	s.mu.Lock()
	ch := s.waiting[id]
	delete(s.waiting, id)
	s.mu.Unlock()
	if ch == nil {
		return false
	}
	ch <- msg
	return true
}

// ServeHTTP takes one message the proxy relays: a request is answered
// with the server's response to its id; a notification with 202.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	msg, err := io.ReadAll(io.LimitReader(r.Body, maxMessage))
	if err != nil || r.Method != http.MethodPost {
		http.Error(w, "adkproxy mcp relay: POST one JSON-RPC message", http.StatusBadRequest)
		return
	}
	k, id := classify(msg)
	var ch chan []byte
	if k == kindRequest {
		ch = make(chan []byte, 1)
		s.mu.Lock()
		s.waiting[id] = ch
		s.mu.Unlock()
	}
	if err := s.write(msg); err != nil {
		http.Error(w, "adkproxy mcp relay: the server's stdin is closed: "+err.Error(), http.StatusBadGateway)
		return
	}
	if ch == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	select {
	case resp := <-ch:
		w.Header().Set("Content-Type", "application/json")
		w.Write(append(resp, '\n'))
	case <-s.done:
		http.Error(w, "adkproxy mcp relay: the server exited without answering", http.StatusBadGateway)
	case <-r.Context().Done():
	}
}

// direct runs the server with the client's stdio, unrecorded.
func direct(ctx context.Context, o Options) (int, error) {
	cmd := exec.CommandContext(ctx, o.Command[0], o.Command[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = o.Stdin, o.Stdout, o.Stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), nil
	}
	if err != nil {
		return exitNoServer, fmt.Errorf("adkproxy mcp: cannot start %s: %v", o.Command[0], err)
	}
	return 0, nil
}

func jsonDecode(r io.Reader, v any) error { return json.NewDecoder(r).Decode(v) }
