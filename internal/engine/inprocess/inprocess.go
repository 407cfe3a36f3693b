// Package inprocess is the recorder behind adkproxy's own model calls
// (the LLM judge, the simulated user, Vertex AI evaluations): a
// proxy.Server in this process that the calls reach through its
// Transport, under the cassettes folder's recording lock.
package inprocess

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"

	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/outbound"
	"github.com/adkproxy/adkproxy/internal/engine/runpolicy"
	"github.com/adkproxy/adkproxy/proxy"
)

// BaseURL is the base URL an in-process client names: the host is never
// dialled, the recorder's transport takes every call.
const BaseURL = "http://adkproxy-in-process.invalid"

// Recorder is a running in-process recorder.
type Recorder struct {
	// Server is the proxy, for its Misses and Stats.
	Server  *proxy.Server
	release func() // the recording lock (a no-op in replay)
}

// Options words a recorder's failures.
type Options struct {
	// Rerecord is the hint every call replay cannot answer ends with.
	Rerecord string
	// Where prefixes an error reading the folder (e.g. "--judge-cassettes").
	Where string
	// Missing, if set, is added to the error when the folder does not exist.
	Missing string
	// MissingIsEmpty: in replay a folder that does not exist holds no
	// calls (record had nothing to ask, so it made none); a call is then
	// a miss with the Rerecord hint, saying so. Else it is an OpenError.
	MissingIsEmpty bool
	// Log receives the warning of a stale lock taken over.
	Log *slog.Logger
}

// OpenError is a cassettes folder the recorder could not read.
type OpenError struct{ Err error }

func (e *OpenError) Error() string { return e.Err.Error() }
func (e *OpenError) Unwrap() error { return e.Err }

// Start serves cfg (its Mode, Dir, Upstream and Lenient) with secrets
// redacted and every miss's hint saying o.Rerecord, under the recording
// lock (runpolicy.LockForRecording: two recording runs into one folder
// would overwrite each other's calls). A lock it cannot take is returned
// as runpolicy says; a folder it cannot read is an *OpenError.
func Start(cfg proxy.Config, o Options) (*Recorder, error) {
	cleanup := func() {}
	var missing *cassettes.MissingFolderError
	folder := ""
	if (cfg.Mode == "" || cfg.Mode == proxy.ModeReplay) && o.MissingIsEmpty && errors.As(cassettes.CheckFolder(cfg.Dir), &missing) {
		empty, err := os.MkdirTemp("", "adkproxy-nothing-recorded-")
		if err != nil {
			return nil, err
		}
		o.Rerecord = fmt.Sprintf("%s %s does not exist (its recording made no call); %s", o.Where, cfg.Dir, o.Rerecord)
		// Messages name the folder given, not its stand-in, gone by the time they are read.
		folder, cfg.Dir, cleanup = cfg.Dir, empty, func() { os.Remove(empty) }
	}
	cfg.Redactor = cassettes.NewRedactor()
	cfg.Hints = proxy.Hints{Record: o.Rerecord, Rerecord: o.Rerecord, Mismatch: o.Rerecord, UsedUp: o.Rerecord, Folder: folder}
	unlock, err := runpolicy.LockForRecording(cfg.Dir, cfg.Mode, o.Log)
	if err != nil {
		cleanup()
		return nil, err
	}
	release := func() { unlock(); cleanup() }
	srv, err := proxy.New(cfg)
	if err != nil {
		release()
		if o.Missing != "" && errors.As(err, &missing) {
			err = fmt.Errorf("%w (%s)", err, o.Missing)
		}
		return nil, &OpenError{fmt.Errorf("%s: %w", o.Where, err)}
	}
	return &Recorder{Server: srv, release: release}, nil
}

// HTTPClient sends its calls to the recorder. Answers are capped by the
// proxy's own MaxBody; redirects follow the outbound policy (an upstream
// may not send the judge's calls elsewhere).
func (r *Recorder) HTTPClient() *http.Client {
	return outbound.Policy{}.Wrap(r.Server.Transport())
}

// GeminiClient is a Gemini API client whose calls the recorder takes,
// with key (a placeholder in replay, which sends none).
func (r *Recorder) GeminiClient(key string) (*genai.Client, error) {
	return genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey: key, Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: BaseURL + "/"},
		HTTPClient:  r.HTTPClient(),
	})
}

// Close writes what was recorded and gives up the lock.
func (r *Recorder) Close() error {
	err := r.Server.Close()
	r.release()
	return err
}

// Release gives up the lock of a recorder that is not used after all,
// without writing.
func (r *Recorder) Release() { r.release() }
