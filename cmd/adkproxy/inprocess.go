// The in-process recorder behind adkproxy's own calls (the judge, the
// simulated user, Vertex AI evaluations): a proxy.Server the calls reach
// through its Transport, under the recording lock, and its closing.

package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/proxy"
)

// inProcessBaseURL is the base URL an in-process client names: the host is
// never dialled, the recorder's transport takes every call.
const inProcessBaseURL = "http://adkproxy-in-process.invalid"

// inProcess is a running in-process recorder.
type inProcess struct {
	srv *proxy.Server
	// release gives up the recording lock (a no-op in replay).
	release func()
}

// startInProcess serves pcfg (its Mode, Dir, Upstream and Lenient) with
// secrets redacted and every miss's hint saying rerecord, under the
// recording lock. A folder it cannot read is a data error prefixed with
// where; missing, if set, is added when the folder does not exist.
func startInProcess(c *cli.Context, pcfg proxy.Config, rerecord, where, missing string) (*inProcess, error) {
	pcfg.Redactor = cassettes.NewRedactor()
	pcfg.Hints = proxy.Hints{Record: rerecord, Rerecord: rerecord, Mismatch: rerecord, UsedUp: rerecord}
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
		if missing != "" && errors.Is(err, os.ErrNotExist) {
			err = fmt.Errorf("%w (%s)", err, missing)
		}
		return nil, withCode(exitDataErr, fmt.Errorf("%s: %w", where, err))
	}
	return &inProcess{srv: srv, release: release}, nil
}

// httpClient sends its calls to the recorder.
func (r *inProcess) httpClient() *http.Client { return &http.Client{Transport: r.srv.Transport()} }

// close writes what was recorded and gives up the lock.
func (r *inProcess) close() error {
	err := r.srv.Close()
	r.release()
	if err != nil {
		return withCode(exitCantWrite, err)
	}
	return nil
}
