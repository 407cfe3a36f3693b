// The live run: the command against a recording proxy whose folder is a
// fresh temporary one, never the recorded folder.

package drift

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/proxyopt"
	"github.com/adkproxy/adkproxy/internal/engine/clientenv"
	"github.com/adkproxy/adkproxy/internal/engine/wrap"
	"github.com/adkproxy/adkproxy/proxy"
)

// Live is how the agent is run live.
type Live struct {
	// Command is the agent's command line.
	Command []string
	// Upstream is the Gemini API base URL; nil means proxy.DefaultUpstream.
	Upstream *url.URL
	// Environ is the command's environment before adkproxy's variables.
	Environ []string
	// Stdout and Stderr receive the command's output.
	Stdout, Stderr io.Writer
	// Signals are passed on to the command.
	Signals <-chan os.Signal
	// Logger receives the proxy's records; nil discards them.
	Logger *slog.Logger
	// Version is adkproxy's, for the live cassettes' provenance.
	Version string
}

// record runs the command against a recording proxy into a new temporary
// folder and returns its cassettes, with a function that removes it. The
// command failing is an error, with what was recorded still returned.
func (l Live) record(ctx context.Context) (map[string]*cassettes.Cassette, func(), error) {
	tmp, err := os.MkdirTemp("", "adkproxy-drift-")
	if err != nil {
		return nil, func() {}, err
	}
	remove := func() { os.RemoveAll(tmp) }
	log := l.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	srv, err := proxy.New(proxy.Config{Mode: proxy.ModeRecord, Dir: tmp, Upstream: l.Upstream, Logger: log, Version: l.Version})
	if err != nil {
		return nil, remove, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, remove, err
	}
	hs := srv.HTTPServer()
	go hs.Serve(ln)
	base := "http://" + ln.Addr().String()
	placeholder := proxyopt.PlaceholderKeyServes(l.Upstream)
	runErr := wrap.Run(l.Command, clientenv.Env(l.Environ, base, placeholder), l.Signals, l.Stdout, l.Stderr)
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	hs.Shutdown(sctx)
	if err := srv.Close(); err != nil {
		return nil, remove, fmt.Errorf("writing the live run's cassettes: %w", err)
	}
	_, live, err := cassettes.LoadPath(tmp)
	if err != nil && !errors.Is(err, cassettes.ErrNotFound) {
		return nil, remove, err
	}
	if runErr != nil {
		var st *wrap.Status
		if errors.As(runErr, &st) && st.Err.Error() == "" {
			st.Err = fmt.Errorf("%s exited with status %d", l.Command[0], st.Code)
		}
		return live, remove, fmt.Errorf("the live run failed: %w", runErr)
	}
	return live, remove, nil
}
