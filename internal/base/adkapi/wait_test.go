package adkapi_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/adkproxy/adkproxy/internal/base/adkapi"
)

func TestWaitUp(t *testing.T) {
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if asked.Add(1) < 3 {
			http.Error(w, "starting", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprint(w, `["app"]`)
	}))
	defer srv.Close()
	c, _ := adkapi.New(srv.URL, "")
	if err := c.WaitUp(t.Context(), nil); err != nil {
		t.Fatalf("WaitUp: %v", err)
	}
	if asked.Load() != 3 {
		t.Errorf("asked %d times, want 3 (two 503s, then the answer)", asked.Load())
	}

	// A server process that ended: ErrStopped, with the last answer.
	down, _ := adkapi.New("http://127.0.0.1:1", "")
	stopped := make(chan struct{})
	close(stopped)
	if err := down.WaitUp(t.Context(), stopped); !errors.Is(err, adkapi.ErrStopped) {
		t.Errorf("WaitUp with the process gone = %v, want ErrStopped", err)
	}
	// Given up: the context's error.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := down.WaitUp(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("WaitUp with a canceled context = %v", err)
	}

	// Up, but not there (a wrong prefix): at once, not after a timeout.
	var wrong atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		wrong.Add(1)
		http.NotFound(w, r)
	}))
	defer elsewhere.Close()
	c, _ = adkapi.New(elsewhere.URL, "/api")
	err := c.WaitUp(t.Context(), nil)
	if !errors.Is(err, adkapi.ErrNotServed) || wrong.Load() != 1 {
		t.Errorf("WaitUp against a 404 = %v after %d asks, want ErrNotServed after 1", err, wrong.Load())
	}
	if err != nil && !strings.Contains(err.Error(), "wrong --prefix?") {
		t.Errorf("no prefix hint in %q", err)
	}
}
