// MCP servers over stdio. `adkproxy mcp -- SERVER...` relays each
// JSON-RPC message its client writes as a POST to
// proxyopt.ControlMCP+NAME, and the proxy treats it as a tool exchange
// with the scheme "stdio" and the host NAME: while recording it is
// fetched from the loopback address the relay names (which writes it to
// the real server) and filed under the step whose function call it
// served; in replay it is answered from the cassette, or verified field
// by field against the recording, as any tool request is. Replay starts
// no server: the relay sends no upstream address then.

package proxy

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/proxyopt"
	"github.com/adkproxy/adkproxy/internal/data/conversation"
	"github.com/adkproxy/adkproxy/matcher"
)

// SchemeStdio is the scheme of a stdio MCP server's exchanges.
const SchemeStdio = "stdio"

func (s *Server) serveStdio(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, proxyopt.ControlMCP)
	if !validServerName(name) {
		s.report.failed()
		writeError(w, http.StatusBadRequest, statusInvalidArgument, fmt.Sprintf(
			"POST %s: %q is not an MCP server name (letters, digits, '.', '_' and '-', at most 63)", r.URL.Path, name))
		return
	}
	target := ""
	if up := r.Header.Get(proxyopt.HeaderMCPUpstream); up != "" && s.cfg.Mode != ModeReplay {
		u, err := url.Parse(up)
		if err != nil || u.Scheme != "http" || !loopbackIP(u.Hostname()) {
			s.report.failed()
			writeError(w, http.StatusBadRequest, statusInvalidArgument, fmt.Sprintf(
				"%s %q is not an http:// URL on a loopback address", proxyopt.HeaderMCPUpstream, up))
			return
		}
		target = u.String()
	}
	in := r.Clone(r.Context())
	in.URL = &url.URL{Scheme: SchemeStdio, Host: name, Path: "/"}
	in.Header.Del(proxyopt.HeaderMCPUpstream)
	s.serveToolAt(w, in, target)
}

// validServerName: a name usable as a tool host.
func validServerName(name string) bool {
	if name == "" || len(name) > 63 {
		return false
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func loopbackIP(host string) bool {
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ToolFaker answers tool requests a test declared (Config.ToolFakes):
// Fake returns the answer for req, a request of the named cassette, and
// how long to hold it back, or ok false to leave req to its recording or
// its server. It is called for every tool request, concurrently.
type ToolFaker interface {
	Fake(cassette string, req *cassettes.Request) (resp *cassettes.Response, delay time.Duration, ok bool)
}

// serveFake answers a tool request with a fake's answer; while recording
// it is kept as the exchange, filed as the tool's own answer would be.
func (s *Server) serveFake(w http.ResponseWriter, r *http.Request, t *tape, req cassettes.Request, resp *cassettes.Response, delay time.Duration) {
	start := time.Now()
	if delay > 0 {
		timer := time.NewTimer(delay)
		select {
		case <-timer.C:
		case <-r.Context().Done():
			timer.Stop()
			return
		}
	}
	x := &cassettes.Exchange{Request: req, Response: *resp}
	x.Response.Header = resp.Header.Clone()
	if t.recording && t.persist {
		s.storeHeaders(&x.Request, r)
		if p, ok := t.org.FileTool(strings.TrimSpace(r.Header.Get(HeaderInvocation))); ok {
			x.Place = &p
		}
		stored := x.Request
		s.keep(t, x, &stored, start, conversation.Token{}, nil)
	}
	s.report.matched(t.name, x)
	s.log.Debug("tool fake served", "cassette", t.name, "host", req.Host, "fake", resp.Header.Get("X-Adkproxy-Fake"))
	if t.replaying && !t.recording && s.fakeOnStream(w, &req, resp) {
		return
	}
	copyHeaders(w.Header(), resp.Header)
	w.Header().Set("Content-Length", strconv.Itoa(len(resp.Body)))
	w.WriteHeader(resp.Status)
	w.Write(resp.Body)
}

// closedWorld refuses a tool request in a closed-world replay that is
// neither recorded exactly nor faked, naming it; the run fails whatever
// the mode.
func (s *Server) closedWorld(w http.ResponseWriter, name string, req *cassettes.Request) {
	target := cassettes.HTTPCall{Method: req.Method, Scheme: req.Scheme, Host: req.Host, Path: req.Path, Query: req.Query}.Target()
	msg := fmt.Sprintf("closed world: cassette %q: the %s is neither recorded nor faked (replay --closed-world); record it, or add a fake for it (--tool-fakes)",
		name, toolWhat(req, target))
	o := outcomeFor(matcher.OutcomeUnmatched, name, req, nil)
	o.Message = msg
	s.report.add(o)
	s.closedWorldMisses.Add(1)
	s.log.Warn("closed world: tool request neither recorded nor faked", "cassette", name, "host", req.Host, "path", req.Path)
	writeError(w, http.StatusBadGateway, statusUnavailable, msg)
}
