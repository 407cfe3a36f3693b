// Intercepted traffic to hosts that are not Gemini's (an agent's
// tools). Every such exchange, from a CONNECT tunnel or in absolute form,
// is handed to the handler toolTraffic returns. It is recorded as a tool
// exchange, filed under the step whose function call it served
// (conversation.Organizer.FileTool), and in replay answered from the
// cassette by matcher.ToolKey, first in, first out, or verified field by
// field against the recording at the same endpoint. Replay never opens a
// connection to a tool host.

package proxy

import (
	"fmt"
	"hash/maphash"
	"net/http"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/proxyopt"
	"github.com/adkproxy/adkproxy/internal/data/conversation"
	"github.com/adkproxy/adkproxy/internal/wire"
	"github.com/adkproxy/adkproxy/matcher"
)

// toolTraffic returns the handler for intercepted non-Gemini requests;
// r.URL is absolute (https://host/path for a tunnel).
func (s *Server) toolTraffic() http.Handler { return http.HandlerFunc(s.serveTool) }

func (s *Server) serveTool(w http.ResponseWriter, r *http.Request) {
	if s.refuseControlPath(w, r) {
		return
	}
	s.serveToolAt(w, r, r.URL.String())
}

// serveToolAt serves a tool request whose r.URL names the tool's scheme
// and host as they are stored, and whose recording is fetched from target
// ("" when nothing can record it: replay only).
func (s *Server) serveToolAt(w http.ResponseWriter, r *http.Request, target string) {
	name, path, body, leave, ok := s.admit(w, r)
	if !ok {
		return
	}
	defer leave()
	if wire.IsMCPServerStream(r.Method, r.Header) {
		// Streamable HTTP's optional stream of server messages never
		// ends while the session lasts, so it cannot be kept: in every
		// mode it is answered as by a server without one, and the client
		// carries on over its POSTs, in record as in replay.
		w.Header().Set("Allow", "POST, DELETE")
		writeError(w, http.StatusMethodNotAllowed, statusInvalidArgument,
			"adkproxy answers MCP's optional GET stream of server messages with 405 in record and replay alike; requests and their answers go over POST")
		return
	}
	// A tool's token request carries its secrets in the body (form or
	// JSON fields named like credentials): learn them before anything is
	// stored or compared.
	s.cfg.Redactor.LearnBody(r.Header.Get("Content-Type"), body)
	req := s.capture(r, body)
	req.Scheme, req.Host = r.URL.Scheme, cassettes.ToolHost(r.URL.Scheme, r.URL.Host)
	// Matching reads only the content type (a form body compares as
	// pairs); the headers to store are taken when recording.
	if ct := r.Header.Values("Content-Type"); len(ct) > 0 {
		req.Header = http.Header{"Content-Type": ct}
	}
	var t *tape
	if s.passes(r, body) {
		t = s.passthroughTape(name)
	} else {
		if t, ok = s.openTape(w, name, path); !ok {
			return
		}
		if t == nil {
			if s.cfg.ClosedWorld {
				s.closedWorldMisses.Add(1)
			}
			s.refuseTool(w, name, &req, "there is no such cassette")
			return
		}
	}
	if t.replaying && !t.recording {
		var done func()
		w, done = s.streamFailures(w, &req)
		defer done()
	}
	if t.replaying && s.faults.active() && s.toolFault(w, r, t, &req) {
		return
	}
	if s.cfg.ToolFakes != nil && (t.persist || t.replaying) && !onLiveMCPStream(t, r, &req) {
		if resp, delay, ok := s.cfg.ToolFakes.Fake(t.name, &req); ok {
			s.serveFake(w, r, t, req, resp, delay)
			return
		}
	}
	if t.replaying && s.cfg.Match != nil {
		if e, usedUp := s.takeMatching(t, &req); e != nil {
			s.replayedTool(w, r, name, e, &req, body)
			return
		} else if !t.recording && s.cfg.ClosedWorld {
			s.closedWorld(w, name, &req)
			return
		} else if !t.recording {
			s.verifyMatching(w, t, &req, usedUp)
			return
		}
	} else if t.replaying {
		if e, usedUp := t.takeFrom(t.tools, t.toolKey(&req), s.cfg.AllowRepeats); e != nil {
			s.replayedTool(w, r, name, e, &req, body)
			return
		} else if !t.recording && s.cfg.ClosedWorld {
			s.closedWorld(w, name, &req)
			return
		} else if !t.recording {
			s.verifyTool(w, r, t, &req, usedUp)
			return
		}
	}
	if target == "" {
		s.report.failed()
		writeError(w, http.StatusBadRequest, statusInvalidArgument, fmt.Sprintf(
			"%s://%s: nothing to record this tool request from (adkproxy mcp sends %s while recording)", req.Scheme, req.Host, proxyopt.HeaderMCPUpstream))
		return
	}
	out, err := newUpstreamRequest(r, target, body)
	if err != nil {
		s.report.failed()
		writeError(w, http.StatusBadRequest, statusInvalidArgument, err.Error())
		return
	}
	s.storeHeaders(&req, r)
	tag := strings.TrimSpace(r.Header.Get(HeaderInvocation))
	s.relay(w, r, t, out, req, func(x *cassettes.Exchange) (conversation.Token, *analysis) {
		if p, ok := t.org.FileTool(tag); ok {
			x.Place = &p
		}
		t.awaitStep(x)
		return conversation.Token{}, nil
	})
}

// replayedTool serves a tool request's recording; a JSON-RPC request,
// matched whatever its id, gets the answer with the id it sent.
//
// MCP's older HTTP+SSE transport answers on a stream of its own: its GET
// is held open after the endpoint it announced, and each POST to that
// endpoint pushes its recorded response there (mcp_stream.go).
func (s *Server) replayedTool(w http.ResponseWriter, r *http.Request, name string, e *entry, req *cassettes.Request, body []byte) {
	if endpoint, at, ok := wire.MCPStreamEndpoint(&e.x.Response); ok && req.Method == http.MethodGet {
		s.serveMCPStream(w, r, name, e, endpoint, at)
		return
	}
	recorded := &e.x.Request
	if resp, ok := wire.AnswerWithID(&e.x.Request, req, &e.x.Response); ok {
		x := *e.x
		x.Response = *resp
		e = &entry{x: &x, fp: e.fp}
	}
	s.replayed(w, r, name, e, body)
	if req.Method == http.MethodPost {
		s.pushMCPStream(recorded, req)
	}
}

// verifyTool handles a tool request with no recording of its own: compared
// with the first unused recording at the same endpoint (host, method,
// path) it fails a strict run naming each differing field; a host the
// cassette holds nothing for gets a 502.
func (s *Server) verifyTool(w http.ResponseWriter, r *http.Request, t *tape, req *cassettes.Request, usedUp int) {
	target := cassettes.HTTPCall{Method: req.Method, Scheme: req.Scheme, Host: req.Host, Path: req.Path, Query: req.Query}.Target()
	if usedUp > 0 {
		s.miss(w, matcher.OutcomeUnmatched, t.name, req, nil, nil, hinted(fmt.Sprintf(
			"cassette %q: all %d recorded answers to the %s were already used",
			t.name, usedUp, toolWhat(req, target)), "; ", s.cfg.Hints.UsedUp))
		return
	}
	e, hostKnown := t.toolPosition(req)
	if !hostKnown {
		s.refuseTool(w, t.name, req, "it holds no recording for this host")
		return
	}
	if e == nil {
		s.miss(w, matcher.OutcomeUnmatched, t.name, req, nil, nil, hinted(fmt.Sprintf(
			"cassette %q: no recording of the %s (the cassette has other requests to %s)",
			t.name, toolWhat(req, target), req.Host), "; ", s.cfg.Hints.Rerecord))
		return
	}
	diffs := t.m.DiffTool(&e.x.Request, req)
	s.differs(w, r, t, e, req, diffs, hinted(fmt.Sprintf("%s: %s differs from the recording:%s",
		describePlace(t.name, e.x.Place), toolWhat(req, target), matcher.FormatDiffs(diffs, maxShownDiffs)), "\n", s.cfg.Hints.Mismatch))
}

// toolWhat names a tool request in a message: by its MCP server and tool
// when it is MCP (wire.MCPRequestOf), by its remote agent and method when
// it is A2A (wire.A2AOf), else by its method and target.
func toolWhat(req *cassettes.Request, target string) string {
	if c, ok := wire.MCPRequestOf(req); ok && req.Scheme == "stdio" {
		return c.Label()
	} else if ok {
		return c.Label() + " (" + req.Method + " " + target + ")"
	}
	if c, ok := wire.A2AOf(&cassettes.Exchange{Request: *req}); ok {
		return c.Label() + " (" + req.Method + " " + target + ")"
	}
	return "tool request " + req.Method + " " + target
}

// refuseTool answers a tool request replay holds nothing for with a 502
// naming the host and the cassette, counted as unmatched (a strict run
// fails): replay opens no connection to any host.
func (s *Server) refuseTool(w http.ResponseWriter, name string, req *cassettes.Request, why string) {
	msg := fmt.Sprintf("cassette %q: no recording of %s %s://%s%s: %s, and in replay the tool host %s is not contacted (cassettes in %s)",
		name, req.Method, req.Scheme, req.Host, req.Path, why, req.Host, s.cfg.Dir)
	o := outcomeFor(matcher.OutcomeUnmatched, name, req, nil)
	o.Message = msg
	s.report.add(o)
	s.log.Warn("unmatched tool request", "cassette", name, "method", req.Method, "host", req.Host, "path", req.Path)
	writeError(w, http.StatusBadGateway, statusUnavailable, msg)
}

// addTool indexes a tool exchange by its matcher.ToolKey, kept as its fp,
// and by its bytes as sent; callers hold the lock or own t.
func (t *tape) addTool(e *entry) {
	if t.tools == nil {
		t.tools, t.toolsSent = map[matcher.Fingerprint][]*entry{}, map[uint64]*entry{}
	}
	e.fp = t.m.ToolKey(&e.x.Request)
	t.tools[e.fp] = append(t.tools[e.fp], e)
	if h := toolSentHash(&e.x.Request); t.toolsSent[h] == nil {
		t.toolsSent[h] = e
	}
}

// toolKey is req's matcher.ToolKey. As for model calls (see fingerprint),
// a request sent exactly as recorded is found by a fast hash of its bytes
// and only other requests are canonicalised.
func (t *tape) toolKey(req *cassettes.Request) matcher.Fingerprint {
	h := toolSentHash(req)
	t.mu.Lock()
	e := t.toolsSent[h]
	t.mu.Unlock()
	if e != nil && e.x.Request.Scheme == req.Scheme && e.x.Request.Host == req.Host && sameAsSent(&e.x.Request, req) &&
		e.x.Request.Header.Get("Content-Type") == req.Header.Get("Content-Type") {
		return e.fp
	}
	return t.m.ToolKey(req)
}

func toolSentHash(req *cassettes.Request) uint64 {
	return sentHash(req) ^ maphash.String(sentSeed, req.Scheme+"://"+req.Host)
}

// toolPosition finds the first unused recording at req's endpoint, and
// whether the cassette holds anything for req's host. Every message of
// an MCP session goes to one endpoint: a JSON-RPC request is compared
// with the first unused recording of its method and tool, if any.
func (t *tape) toolPosition(req *cassettes.Request) (e *entry, hostKnown bool) {
	call, isMCP := wire.MCPRequestOf(req)
	t.mu.Lock()
	defer t.mu.Unlock()
	var first *entry
	for _, c := range t.entries {
		if !c.x.IsTool() || c.x.Request.Host != req.Host {
			continue
		}
		hostKnown = true
		if c.used || c.contested || !matcher.SameToolPlace(&c.x.Request, req) {
			continue
		}
		if !isMCP {
			return c, true
		}
		if first == nil {
			first = c
		}
		if m, ok := wire.MCPRequestOf(&c.x.Request); ok && m.Method == call.Method && m.Name == call.Name {
			return c, true
		}
	}
	return first, hostKnown
}
