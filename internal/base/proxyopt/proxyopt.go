// Package proxyopt holds what package proxy shares with adkproxy's own
// programs (the CLI and adkproxytest) beyond its public API, below it so
// that each imports it directly: the listener wrappers the CLI serves
// through (connection limit, TLS on the same port), the body of the errors
// adkproxy answers with itself, the tunnel host pattern check, the
// placeholder key replay hands out and when a recording client may use it
// too, the control API's paths, and the defaults of proxy.Limits the CLI
// shows as flag defaults.
package proxyopt

import (
	"fmt"
	"strings"
	"time"
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
