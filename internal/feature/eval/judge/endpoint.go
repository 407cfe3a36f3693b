// The judge's recorder as a Gemini endpoint on loopback, for custom
// metrics that call a model themselves: their calls are recorded and
// replayed like the judge's own.

package judge

import (
	"fmt"
	"net"
	"net/http"
	"sync/atomic"

	"github.com/adkproxy/adkproxy/scoring"
)

// Endpoint implements scoring.ModelEndpoint on the judge's recorder.
type Endpoint struct {
	// Recorder is the judge's recorder (a proxy.Server's handler).
	Recorder http.Handler
	// Env is added to the custom metric's environment besides
	// GOOGLE_GEMINI_BASE_URL (in replay, a stand-in API key, since SDKs
	// refuse to start without one).
	Env []string
}

// Open serves one custom metric run on one case on a loopback port of its
// own: every call goes into the case's judge cassette (CassetteName), named
// "<case>/custom/<metric>/<n>", n counting the run's calls from 1.
func (e *Endpoint) Open(c *scoring.Case, metric string) ([]string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, fmt.Errorf("the model endpoint for custom metric %s: %w", metric, err)
	}
	cassette := headerSafe(CassetteName(c))
	var calls atomic.Int64
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Set("X-Adkproxy-Cassette", cassette)
		r.Header.Set("X-Adkproxy-Invocation", headerSafe(fmt.Sprintf("%s/custom/%s/%d", c.ID, metric, calls.Add(1))))
		e.Recorder.ServeHTTP(w, r)
	})}
	go srv.Serve(ln)
	env := append([]string{"GOOGLE_GEMINI_BASE_URL=http://" + ln.Addr().String()}, e.Env...)
	return env, func() { srv.Close() }, nil
}
