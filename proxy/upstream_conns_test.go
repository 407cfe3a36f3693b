package proxy_test

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/adkproxy/adkproxy/proxy"
)

// TestParallelCallsReuseUpstreamConnections: agents call the API in
// parallel, and each new upstream connection to the real API costs a TLS
// handshake. Sixteen clients making ten rounds of calls through a
// recording proxy must not open a connection per call.
func TestParallelCallsReuseUpstreamConnections(t *testing.T) {
	var opened atomic.Int64
	up := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"candidates":[{"content":{"parts":[{"text":"ok"}],"role":"model"}}]}`)
	}))
	up.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			opened.Add(1)
		}
	}
	up.Start()
	defer up.Close()

	rec := startProxy(t, proxy.Config{Mode: proxy.ModePassthrough, Dir: t.TempDir(), Upstream: mustURL(t, up.URL)})
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	const clients, rounds = 16, 10
	for round := range rounds {
		var wg sync.WaitGroup
		for i := range clients {
			wg.Go(func() {
				body := `{"contents":[{"role":"user","parts":[{"text":"call ` + strings.Repeat("x", i) + `"}]}]}`
				resp, err := client.Post(rec.URL+generatePath, "application/json", strings.NewReader(body))
				if err != nil {
					t.Errorf("round %d: %v", round, err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Errorf("round %d: status %d", round, resp.StatusCode)
				}
			})
		}
		wg.Wait()
	}
	if n := opened.Load(); n > 2*clients {
		t.Errorf("%d calls opened %d upstream connections; at most %d expected (one per parallel call, kept for the next)", clients*rounds, n, 2*clients)
	}
}
