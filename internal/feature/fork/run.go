// Package fork is adkproxy fork: a recorded run replayed up to a step,
// changed there (another model, system instruction, tools, any request
// field) and continued against an upstream, recorded into a sibling
// cassette folder, once or as K samples, then compared with the original
// by the score and diff code (docs/variance.md, "A fork at a step").
package fork

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/samplename"
	"github.com/adkproxy/adkproxy/internal/engine/clientenv"
	"github.com/adkproxy/adkproxy/internal/engine/runpolicy"
	"github.com/adkproxy/adkproxy/internal/engine/wrap"
	"github.com/adkproxy/adkproxy/internal/wire"
	"github.com/adkproxy/adkproxy/proxy"
)

// Options are one fork.
type Options struct {
	// Dir holds the recorded run; Cassette names the cassette forked
	// (the others are replayed as recorded).
	Dir, Cassette string
	At            Point
	Change        wire.Change
	// Upstream is where calls from the fork point on go.
	Upstream *url.URL
	// Out is the sibling folder the continuation is recorded into.
	Out string
	// Samples > 0 records that many samples (NAME@1..NAME@K) into Out.
	Samples int
	Command []string
	// Environ is the command's environment before adkproxy's variables.
	Environ        []string
	Stdout, Stderr io.Writer
	Logger         *slog.Logger
}

// ErrBeforeFork: a request before the fork point differed from the
// recording (it was not sent upstream).
var ErrBeforeFork = errors.New("the run differs from the recording before the fork point")

// Variant is one recorded continuation.
type Variant struct {
	// Name is the cassette the variant was recorded as (NAME or NAME@N).
	Name string
	// Replayed and Forwarded count the forked cassette's model calls
	// answered from the recording and sent upstream.
	Replayed, Forwarded int
	// CommandErr is the command's failure, if it failed.
	CommandErr error
}

// Record runs the fork: seeds Out, runs the command once per sample, and
// returns what each run did. A request before the fork point that differs
// from the recording is refused, never sent, and fails with ErrBeforeFork.
func Record(ctx context.Context, o Options) ([]Variant, error) {
	if o.Change.Empty() {
		return nil, errors.New("nothing to change at the fork point: give --model, --system-instruction, --set or --tools")
	}
	loaded, err := cassettes.LoadDir(o.Dir)
	if err != nil {
		return nil, err
	}
	c := loaded[o.Cassette]
	if c == nil {
		return nil, fmt.Errorf("%s holds no cassette %q (it has: %v); name it with --cassette", o.Dir, o.Cassette, slices.Sorted(maps.Keys(loaded)))
	}
	head, before, err := seed(o.Cassette, c, o.At)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, err
	}
	release, err := runpolicy.Lock(o.Out, o.Logger)
	if err != nil {
		return nil, err
	}
	defer release()
	samples := []int{0}
	if o.Samples > 0 {
		samples = samples[:0]
		for n := 1; n <= o.Samples; n++ {
			samples = append(samples, n)
		}
	}
	var out []Variant
	for _, n := range samples {
		if err := writeSeed(o, loaded, head, n); err != nil {
			return out, err
		}
		v, err := runOnce(ctx, o, before, n)
		out = append(out, v)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// writeSeed writes sample n's cassettes into Out: the forked cassette up
// to the fork point, the others whole.
func writeSeed(o Options, loaded map[string]*cassettes.Cassette, head []*cassettes.Exchange, n int) error {
	for name, c := range loaded {
		if _, k := samplename.Split(name); k > 0 {
			continue // the original's own samples are not the run forked
		}
		xs := c.Exchanges
		if name == o.Cassette {
			xs = head
		}
		out := &cassettes.Cassette{Name: samplename.Name(name, n), Exchanges: xs, Trajectories: wire.StepOf}
		path, err := cassettes.PathFor(o.Out, out.Name)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := cassettes.Save(path, out, nil); err != nil {
			return err
		}
	}
	return nil
}

// runOnce serves sample n through the front and the proxy and runs the
// command against it.
func runOnce(ctx context.Context, o Options, before, n int) (Variant, error) {
	f := &front{cassette: o.Cassette, before: before, change: o.Change}
	cfg := proxy.Config{Mode: proxy.ModeRecordNewEpisodes, Dir: o.Out, DefaultCassette: o.Cassette, Sample: n,
		Upstream: o.Upstream, Logger: o.Logger, Transport: guard{f: f, next: upstreamTransport()}}
	srv, err := proxy.New(cfg)
	if err != nil {
		return Variant{}, err
	}
	f.next = srv
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return Variant{}, err
	}
	hs := &http.Server{Handler: f, ReadHeaderTimeout: time.Minute}
	go hs.Serve(ln)
	base := "http://" + ln.Addr().String()
	env := clientenv.Env(o.Environ, base, wrap.PlaceholderKey(cfg))
	runErr := wrap.Run(o.Command, env, nil, o.Stdout, o.Stderr)
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	hs.Shutdown(sctx)
	closeErr := srv.Close()
	v := Variant{Name: samplename.Name(o.Cassette, n), CommandErr: runErr}
	v.Replayed, v.Forwarded = min(f.calls, before), max(f.calls-before, 0)
	switch {
	case closeErr != nil:
		return v, closeErr
	case len(f.refused) > 0:
		return v, fmt.Errorf("%w: %s: %v; nothing of it was sent upstream", ErrBeforeFork, v.Name, f.refused)
	case len(f.failed) > 0:
		return v, fmt.Errorf("%s: the change could not be applied: %v", v.Name, f.failed)
	case f.calls < before:
		return v, fmt.Errorf("%w: %s: the command made %d model calls, the recording has %d before the fork point", ErrBeforeFork, v.Name, f.calls, before)
	}
	return v, nil
}

func upstreamTransport() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ResponseHeaderTimeout = 10 * time.Minute
	return t
}
