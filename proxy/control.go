// Control API: the reserved /_adkproxy/ paths through which a test
// framework or a container runtime asks the proxy about its run and steers
// it. They are never model traffic: never forwarded, recorded, matched or
// counted in the report.

package proxy

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/adkproxy/adkproxy/internal/base/proxyopt"
)

// ControlPrefix starts every path of the control API: health, report,
// cassette, faults and flush (docs/sidecar.md describes them). A client's
// model traffic never uses it: Gemini and Vertex AI paths start with a
// version (/v1beta/...).
const ControlPrefix = proxyopt.ControlPrefix

// maxControlBody bounds a control request's body: a cassette name.
const maxControlBody = 64 << 10

// isControl says whether a request is for the control API (the prefix
// without its slash too, so it never becomes model traffic either).
func isControl(r *http.Request) bool {
	return strings.HasPrefix(r.URL.Path, ControlPrefix) || r.URL.Path == strings.TrimSuffix(ControlPrefix, "/")
}

// defaultCassette is the cassette for requests that name none: the
// configured one until a PUT on proxyopt.ControlCassette changes it. Every request
// reads it, so it is an atomic pointer rather than a lock.
type defaultCassette struct {
	name atomic.Pointer[string] // nil until changed: Config.DefaultCassette
}

// DefaultCassette is the cassette requests that name none go to now.
func (s *Server) DefaultCassette() string {
	if n := s.defaultCassette.name.Load(); n != nil {
		return *n
	}
	return s.cfg.DefaultCassette
}

// SetDefaultCassette sends requests that name no cassette to name from
// now on. The name is checked as a name in a request header is; requests
// already being served keep the cassette they started with.
func (s *Server) SetDefaultCassette(name string) (previous string, err error) {
	if _, err := s.pathFor(name); err != nil {
		return "", err
	}
	previous = s.cfg.DefaultCassette
	if old := s.defaultCassette.name.Swap(&name); old != nil {
		previous = *old
	}
	return previous, nil
}

// serveControl answers a request under ControlPrefix.
func (s *Server) serveControl(w http.ResponseWriter, r *http.Request) {
	if code, msg := s.controlAllowed(r); code != 0 {
		if code == http.StatusUnauthorized {
			w.Header().Set("WWW-Authenticate", `Bearer realm="adkproxy"`)
		}
		writeError(w, code, refusalStatus(code), msg)
		return
	}
	if strings.HasPrefix(r.URL.Path, proxyopt.ControlMCP) {
		if allow(w, r, http.MethodPost) {
			s.serveStdio(w, r)
		}
		return
	}
	switch r.URL.Path {
	case proxyopt.ControlHealth:
		if allow(w, r, http.MethodGet) {
			writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "mode": s.cfg.reportMode(), "cassette": s.DefaultCassette()})
		}
	case proxyopt.ControlReport:
		if allow(w, r, http.MethodGet) {
			writeJSON(w, http.StatusOK, s.Report())
		}
	case proxyopt.ControlCassette:
		if allow(w, r, http.MethodGet, http.MethodPut) {
			s.serveCassette(w, r)
		}
	case proxyopt.ControlFaults:
		if allow(w, r, http.MethodGet, http.MethodPut) {
			s.serveFaults(w, r)
		}
	case proxyopt.ControlFlush:
		if allow(w, r, http.MethodPost) {
			if err := s.Flush(); err != nil {
				writeError(w, http.StatusInternalServerError, statusInternal, "flush: "+err.Error())
				return
			}
			writeJSON(w, http.StatusOK, map[string]any{"status": "ok"})
		}
	case proxyopt.ControlConfirmation:
		if allow(w, r, http.MethodPost) {
			s.serveConfirmation(w, r)
		}
	default:
		writeError(w, http.StatusNotFound, statusNotFound, fmt.Sprintf("no control endpoint %s; there are GET %s, GET %s, GET|PUT %s, GET|PUT %s, POST %s, POST %s and POST %sNAME",
			r.URL.Path, proxyopt.ControlHealth, proxyopt.ControlReport, proxyopt.ControlCassette, proxyopt.ControlFaults, proxyopt.ControlFlush, proxyopt.ControlConfirmation, proxyopt.ControlMCP))
	}
}

func (s *Server) serveCassette(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		writeJSON(w, http.StatusOK, map[string]string{"name": s.DefaultCassette()})
		return
	}
	var body struct {
		Name *string `json:"name"`
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxControlBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil || body.Name == nil {
		why := "it has no \"name\""
		if err != nil {
			why = err.Error()
		}
		writeError(w, http.StatusBadRequest, statusInvalidArgument,
			fmt.Sprintf(`PUT %s wants a JSON body {"name": "suite/TestX"}: %s`, proxyopt.ControlCassette, why))
		return
	}
	if dec.Decode(&struct{}{}) != io.EOF {
		writeError(w, http.StatusBadRequest, statusInvalidArgument,
			fmt.Sprintf(`PUT %s wants one JSON object {"name": "suite/TestX"}, and the body has more after it`, proxyopt.ControlCassette))
		return
	}
	previous, err := s.SetDefaultCassette(*body.Name)
	if err != nil {
		writeError(w, http.StatusBadRequest, statusInvalidArgument, fmt.Sprintf("bad cassette name in PUT %s: %v", proxyopt.ControlCassette, err))
		return
	}
	s.log.Debug("default cassette set", "cassette", *body.Name, "previous", previous)
	writeJSON(w, http.StatusOK, map[string]string{"name": *body.Name, "previous": previous})
}

func bearerToken(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(token), true
}

func isLoopbackPeer(remoteAddr string) bool {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// allow answers 405 naming the allowed methods unless r uses one of them.
func allow(w http.ResponseWriter, r *http.Request, methods ...string) bool {
	for _, m := range methods {
		if r.Method == m {
			return true
		}
	}
	w.Header().Set("Allow", strings.Join(methods, ", "))
	writeError(w, http.StatusMethodNotAllowed, statusInvalidArgument,
		fmt.Sprintf("%s %s is not a control request; use %s", r.Method, r.URL.Path, strings.Join(methods, " or ")))
	return false
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	body, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		writeError(w, http.StatusInternalServerError, statusInternal, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	w.Write(append(body, '\n'))
}
