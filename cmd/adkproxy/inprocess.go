// The in-process recorder behind adkproxy's own calls (package inprocess),
// its failures given the CLI's exit statuses.

package main

import (
	"errors"
	"log/slog"

	"github.com/urfave/cli/v2"

	"github.com/adkproxy/adkproxy/internal/engine/inprocess"
	"github.com/adkproxy/adkproxy/internal/engine/reclock"
	"github.com/adkproxy/adkproxy/proxy"
)

// inProcess is a running in-process recorder.
type inProcess struct{ *inprocess.Recorder }

// startInProcess serves pcfg as inprocess.Start does; a folder it cannot
// read exits 65, one another recorder holds 75.
func startInProcess(c *cli.Context, pcfg proxy.Config, o inprocess.Options) (*inProcess, error) {
	o.Log = warnings(c)
	rec, err := inprocess.Start(pcfg, o)
	if err != nil {
		return nil, inProcessError(err)
	}
	return &inProcess{rec}, nil
}

func inProcessError(err error) error {
	var open *inprocess.OpenError
	switch {
	case errors.As(err, &open):
		return withCode(exitDataErr, err)
	case errors.Is(err, reclock.ErrLocked):
		return withCode(exitTempFail, err)
	}
	return err
}

// warnings is a logger of warnings to stderr, for the recorders of
// commands that have no --log-format.
func warnings(c *cli.Context) *slog.Logger {
	return slog.New(slog.NewTextHandler(c.App.ErrWriter, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// close writes what was recorded and gives up the lock.
func (r *inProcess) close() error {
	if err := r.Close(); err != nil {
		return withCode(exitCantWrite, err)
	}
	return nil
}
