// tool.go: intercepted traffic to hosts that are not Gemini's (an agent's
// tools). This is the one seam tool traffic enters by: every such
// exchange, from a CONNECT tunnel or in absolute form, is handed to the
// handler toolTraffic returns.
//
// For now tool exchanges are not stored: while recording they are
// forwarded to their host (honouring --connect-to and --upstream-ca); in
// replay, where nothing may reach the network, they get a 502 naming the
// host and count as unmatched requests, failing a strict run.
package proxy

import (
	"fmt"
	"net/http"
	"net/http/httputil"

	"github.com/adkproxy/adkproxy/cassettes"
)

// toolTraffic returns the handler for intercepted non-Gemini requests;
// r.URL is absolute (https://host/path for a tunnel).
func (s *Server) toolTraffic() http.Handler {
	if s.cfg.Mode == ModeReplay {
		return http.HandlerFunc(s.refuseTool)
	}
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.Header.Del(HeaderCassette)
			pr.Out.Header.Del(HeaderTestName)
			pr.Out.Header.Del(HeaderInvocation)
			name := cassetteName(pr.In, s.cfg.DefaultCassette)
			s.report.add(outcomeFor(OutcomeForwarded, name, &cassettes.Request{Method: pr.In.Method, Path: toolTarget(pr.In)}, nil))
			s.log.Debug("tool request forwarded, not recorded", "method", pr.In.Method, "url", toolTarget(pr.In))
		},
		Transport:     s.cfg.Transport,
		FlushInterval: -1, // pass streams on as they come
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if r.Context().Err() != nil {
				return // the client went away
			}
			s.report.failed()
			s.log.Warn("tool host unreachable", "host", r.URL.Host, "error", err)
			writeError(w, http.StatusBadGateway, statusUnavailable,
				fmt.Sprintf("tool host %s is unreachable (%v)", r.URL.Host, errorText(err)))
		},
	}
}

// refuseTool answers a tool request in replay: nothing was recorded for
// it, and replay opens no connection to any host.
func (s *Server) refuseTool(w http.ResponseWriter, r *http.Request) {
	name := cassetteName(r, s.cfg.DefaultCassette)
	req := cassettes.Request{Method: r.Method, Path: toolTarget(r)}
	msg := fmt.Sprintf("cassette %q: no recording of %s %s: replay answers only from cassettes and the tool host %s is not contacted (cassettes in %s)",
		name, r.Method, req.Path, r.URL.Host, s.cfg.Dir)
	o := outcomeFor(OutcomeUnmatched, name, &req, nil)
	o.Message = msg
	s.report.add(o)
	s.log.Warn("unmatched tool request", "cassette", name, "method", r.Method, "url", req.Path)
	writeError(w, http.StatusBadGateway, statusUnavailable, msg)
}

// toolTarget names a tool request in reports and logs: scheme, host and
// path, without the query, which may carry credentials.
func toolTarget(r *http.Request) string {
	return r.URL.Scheme + "://" + r.URL.Host + r.URL.EscapedPath()
}
