// The in-process recorder of adkproxy's own model calls (the LLM judge,
// the simulated user): its mode from the flags and the key, the recording
// lock, the proxy.Server, and the genai client on its transport.

package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"

	"github.com/urfave/cli/v2"
	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/proxyopt"
	"github.com/adkproxy/adkproxy/proxy"
)

// modelRecorderFlags name one recorder's flags and words.
type modelRecorderFlags struct {
	command string // "score"
	dir     string // "judge-cassettes"
	mode    string // "judge-mode"
	baseURL string // "judge-base-url"
	// what is recorded and by which model, for messages: "the judge's
	// verdicts", "the judge model".
	what, model string
	// rerecord is the hint for a call replay cannot answer.
	rerecord string
	// keyOptional: record mode may start without a Gemini key (no
	// criterion is judged with Gemini: only Vertex AI metrics, or custom
	// metrics that bring their own key).
	keyOptional bool
	// lenient: replay serves a changed call's recording and reports it
	// (Server.Misses); else it refuses the call.
	lenient bool
}

// modelRecorder is a running recorder: calls made with client are
// recorded into, or replayed from, dir.
type modelRecorder struct {
	dir    string
	mode   proxy.Mode
	srv    *proxy.Server
	client *genai.Client
	// release gives up the recording lock (a no-op in replay).
	release func()
}

// startModelRecorder reads the flags of f: record when a key is set,
// else replay, unless the mode flag says.
func startModelRecorder(c *cli.Context, f modelRecorderFlags) (*modelRecorder, error) {
	dir := c.String(f.dir)
	key := apiKey()
	mode := proxy.ModeReplay
	if key != "" {
		mode = proxy.ModeRecord
	}
	if v := c.String(f.mode); v != "" {
		m, err := modelModeFor(v)
		if err != nil {
			return nil, usageErrorf("%s: --%s: %v", f.command, f.mode, err)
		}
		mode = m
	}
	pcfg := proxy.Config{Mode: mode, Dir: dir, Redactor: cassettes.NewRedactor()}
	setRecorderHints(&pcfg, f.rerecord)
	if mode == proxy.ModeRecord {
		if key == "" && f.keyOptional {
			key = replayKey // nothing will call the Gemini API
		} else if key == "" {
			return nil, usageErrorf("%s: --%s record needs GOOGLE_API_KEY or GEMINI_API_KEY for %s", f.command, f.mode, f.model)
		}
		u, err := parseUpstream("--"+f.baseURL, c.String(f.baseURL))
		if err != nil {
			return nil, withCode(exitUsage, err)
		}
		pcfg.Upstream = u
	} else {
		key = replayKey
		pcfg.Lenient = f.lenient
	}
	// Two recording runs into one folder would overwrite each other's calls.
	lcfg := pcfg
	lcfg.Logger = slog.New(slog.NewTextHandler(c.App.ErrWriter, &slog.HandlerOptions{Level: slog.LevelWarn}))
	release, err := lockForRecording(lcfg)
	if err != nil {
		return nil, err
	}
	srv, err := proxy.New(pcfg)
	if err != nil {
		release()
		if errors.Is(err, os.ErrNotExist) {
			return nil, withCode(exitDataErr, fmt.Errorf("--%s: %w (record %s first: --%s record with a key)", f.dir, err, f.what, f.mode))
		}
		return nil, withCode(exitDataErr, fmt.Errorf("--%s: %w", f.dir, err))
	}
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey: key, Backend: genai.BackendGeminiAPI,
		// The host is never dialled: the transport hands every call to srv.
		HTTPOptions: genai.HTTPOptions{BaseURL: "http://adkproxy-in-process.invalid/"},
		HTTPClient:  &http.Client{Transport: srv.Transport()},
	})
	if err != nil {
		release()
		return nil, fmt.Errorf("%s: the model client: %w", f.command, err)
	}
	return &modelRecorder{dir: dir, mode: mode, srv: srv, client: client, release: release}, nil
}

// close writes what was recorded and gives up the lock.
func (r *modelRecorder) close() error {
	err := r.srv.Close()
	r.release()
	if err != nil {
		return withCode(exitCantWrite, err)
	}
	return nil
}

// setRecorderHints makes every hint of a recorder's misses say rerecord.
func setRecorderHints(pcfg *proxy.Config, rerecord string) {
	proxyopt.SetHints(pcfg, proxyopt.Hints{Record: rerecord, Rerecord: rerecord, Mismatch: rerecord, UsedUp: rerecord})
}
