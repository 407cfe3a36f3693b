// The fork's front: model calls of the forked cassette are counted; those
// before the fork point go to the proxy unchanged, to be answered from the
// recording, and from the fork point on they are changed and may reach the
// upstream. The guard transport refuses every other request the proxy
// would send upstream, so nothing before the fork point is ever sent.

package fork

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/wire"
	"github.com/adkproxy/adkproxy/proxy"
)

type forwardKey struct{}

// front counts the forked cassette's model calls of one run.
type front struct {
	next     http.Handler
	cassette string // the forked cassette's name (requests naming none go to it)
	before   int    // model calls replayed before the fork point
	change   wire.Change

	mu      sync.Mutex
	calls   int
	refused []string // requests the guard kept from the upstream
	failed  []string // calls the change could not be applied to
}

func (f *front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimSpace(r.Header.Get(proxy.HeaderCassette))
	if name == "" {
		name = strings.TrimSpace(r.Header.Get(proxy.HeaderTestName))
	}
	req := cassettes.Request{Method: r.Method, Path: r.URL.EscapedPath(), Query: r.URL.RawQuery}
	if name != "" && name != f.cassette {
		f.next.ServeHTTP(w, r) // another cassette: replayed as recorded
		return
	}
	if !isModelCall(&req) { // countTokens, model lists: forwarded once the fork is reached
		f.mu.Lock()
		forked := f.calls > f.before
		f.mu.Unlock()
		if forked {
			r = r.WithContext(context.WithValue(r.Context(), forwardKey{}, true))
		}
		f.next.ServeHTTP(w, r)
		return
	}
	f.mu.Lock()
	n := f.calls
	f.calls++
	f.mu.Unlock()
	if n < f.before {
		f.next.ServeHTTP(w, r) // answered from the recording, or refused by the guard
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "adkproxy fork: cannot read the request: "+err.Error(), http.StatusBadRequest)
		return
	}
	req.Body = body
	if err := wire.ApplyChange(&req, f.change); err != nil {
		f.note(&f.failed, fmt.Sprintf("model call %d: %v", n+1, err))
		http.Error(w, "adkproxy fork: "+err.Error(), http.StatusBadRequest)
		return
	}
	r2 := r.Clone(context.WithValue(r.Context(), forwardKey{}, true))
	r2.URL.Path, r2.URL.RawPath = req.Path, ""
	if strings.Contains(req.Path, "%") {
		r2.URL.RawPath = req.Path
	}
	r2.Body, r2.ContentLength = io.NopCloser(bytes.NewReader(req.Body)), int64(len(req.Body))
	r2.Header.Del("Content-Length")
	f.next.ServeHTTP(w, r2)
}

func (f *front) note(list *[]string, s string) {
	f.mu.Lock()
	*list = append(*list, s)
	f.mu.Unlock()
}

// guard is the proxy's transport: only requests the front let through
// after the fork point reach the upstream.
type guard struct {
	f    *front
	next http.RoundTripper
}

func (g guard) RoundTrip(r *http.Request) (*http.Response, error) {
	if ok, _ := r.Context().Value(forwardKey{}).(bool); ok {
		return g.next.RoundTrip(r)
	}
	if r.Body != nil {
		r.Body.Close()
	}
	msg := fmt.Sprintf("%s %s", r.Method, r.URL.Path)
	g.f.note(&g.f.refused, msg)
	return nil, fmt.Errorf("adkproxy fork: %s is before the fork point but differs from the recording, so it is not sent upstream", msg)
}
