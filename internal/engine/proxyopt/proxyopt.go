// Package proxyopt holds what adkproxy's own programs (the CLI and
// adkproxytest) set or use in package proxy beyond its public API: the
// hints that end failure messages in the program's words, the listener
// wrappers the CLI serves through (connection limit, TLS on the same
// port), the tunnel host pattern check, the placeholder key replay hands
// out and when a recording client may use it too, the control API's paths,
// and the defaults of proxy.Limits the CLI shows as flag defaults.
// Package proxy fills in the function variables when it is initialised,
// so they are set wherever proxy is imported.
package proxyopt

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"time"
)

// Hints finish failure messages with what the user can do about them, in
// the words of the program around the server (its commands and flags),
// which package proxy does not know. An empty hint is left out.
type Hints struct {
	// Record: a cassette that does not exist or is empty.
	Record string
	// Rerecord: a request that matches no recording.
	Rerecord string
	// Mismatch: a request that differs from the recording at its place.
	Mismatch string
	// UsedUp: a request whose recorded answers were all used already.
	UsedUp string
	// TooLarge: a request body larger than MaxBody.
	TooLarge string
	// Control: a control request refused for lack of a control token.
	Control string
}

// Set by package proxy.
var (
	// SetHints gives a *proxy.Config the hints its Server ends failure
	// messages with.
	SetHints func(cfg any, h Hints)
	// LimitListener wraps ln so that at most maxConns accepted
	// connections are open at once; a connection beyond that gets a 503
	// Gemini error (UNAVAILABLE, Retry-After: 1) and is closed, rather than
	// waiting unseen in the backlog. Accept errors are logged at warn
	// level on log, at most once a second, then returned (http.Server
	// retries temporary ones).
	LimitListener func(ln net.Listener, maxConns int, log *slog.Logger) net.Listener
	// SniffTLS wraps ln so that each accepted connection whose first byte
	// opens a TLS handshake is served over TLS, with the certificate leaf
	// returns for the name the client asked for, and every other
	// connection as it is. Certificates are given for localhost, loopback
	// addresses and the address the client connected to; other names are
	// refused. Accept never waits on one slow client.
	SniffTLS func(ln net.Listener, leaf func(host string) (*tls.Certificate, error)) net.Listener
)

// The control API's paths (proxy.ControlPrefix is the same prefix).
const (
	ControlPrefix = "/_adkproxy/"
	// ControlHealth (GET) answers 200 {"status":"ok","mode":...} once the
	// server is serving: New has loaded every cassette by then.
	ControlHealth = ControlPrefix + "health"
	// ControlReport (GET) is the report so far, as Server.Report returns
	// it (report.schema.json). Unused recordings are counted by Close, so
	// they appear only in the report written after the run.
	ControlReport = ControlPrefix + "report"
	// ControlCassette (PUT {"name":"suite/TestX"}) sets the cassette for
	// requests that name none; GET returns the current one.
	ControlCassette = ControlPrefix + "cassette"
	// ControlFlush (POST) writes every changed cassette now.
	ControlFlush = ControlPrefix + "flush"
	// ControlFaults replaces the faults a replay injects (PUT, a JSON body
	// {"faults": ["call 1: 429"]}) or lists them (GET).
	ControlFaults = ControlPrefix + "faults"
	// ControlConfirmation (POST, a JSON body {"tool": ..., "confirmed":
	// true, ...}) reports a user's answer to ADK's tool confirmation
	// request, recorded on the step that carries the tool's result.
	ControlConfirmation = ControlPrefix + "confirmation"
	// ControlMCP + NAME (POST, one JSON-RPC message) is a message the
	// client of the stdio MCP server NAME wrote, relayed by `adkproxy mcp`:
	// a tool exchange with the scheme "stdio" and the host NAME. While
	// recording, HeaderMCPUpstream names the loopback address that relays
	// it to the real server.
	ControlMCP = ControlPrefix + "mcp/"
	// HeaderMCPUpstream is that address, as http://127.0.0.1:PORT/.
	HeaderMCPUpstream = "X-Adkproxy-Mcp-Upstream"
)

// ReplayPlaceholderKey is the API key given to clients in replay, for SDKs
// that refuse to start without one; replay never sends it anywhere.
const ReplayPlaceholderKey = "adkproxy-replay-no-key"

// The defaults of proxy.Limits, and the longest a client may take to send
// its headers.
const (
	DefaultReadTimeout           = 60 * time.Second
	DefaultIdleTimeout           = 120 * time.Second
	DefaultWriteTimeout          = 60 * time.Second
	DefaultUpstreamHeaderTimeout = 10 * time.Minute
	DefaultMaxConns              = 1024
	HeaderTimeout                = 30 * time.Second
)

// CheckHostPattern accepts "host" or "*.domain" (no port, no scheme), the
// form of proxy.ForwardProxy.Tunnel's entries.
func CheckHostPattern(p string) error {
	name := strings.TrimPrefix(p, "*.")
	if name == "" || strings.ContainsAny(name, "*/:@ ") || strings.HasPrefix(name, ".") {
		return fmt.Errorf("%q is not a host name or *.domain pattern (no scheme, port or path), e.g. oauth2.googleapis.com or *.example.com", p)
	}
	return nil
}
