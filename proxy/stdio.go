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
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/proxyopt"
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
