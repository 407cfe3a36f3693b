// Recording score's Vertex AI evaluation calls (safety_v1, multi_turn_*):
// their own in-process recorder beside the judge's, the project and
// location ADK reads, and application-default credentials when recording.

package judge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"

	"cloud.google.com/go/auth/credentials"

	"github.com/adkproxy/adkproxy/internal/engine/inprocess"
	"github.com/adkproxy/adkproxy/proxy"
	"github.com/adkproxy/adkproxy/scoring"
)

// VertexSubdir is where the Vertex calls go inside the judge's cassettes.
const VertexSubdir = "vertex"

// VertexRecording says how to record or replay the Vertex calls.
type VertexRecording struct {
	// Mode is the judge's: record or replay.
	Mode proxy.Mode
	// JudgeDir is the judge's cassettes folder; the calls go to its
	// VertexSubdir.
	JudgeDir string
	// Upstream is where the calls go in record mode, for a location.
	Upstream func(location string) (*url.URL, error)
	// Log receives the warning of a stale lock taken over.
	Log *slog.Logger
}

// NeedsVertex says whether cfg has a criterion computed by Vertex AI.
func NeedsVertex(cfg *scoring.Config) bool {
	for _, cr := range cfg.Criteria {
		if scoring.IsVertex(cr.Metric) && !cr.Adkproxy {
			return true
		}
	}
	return false
}

// StartVertex sets cfg.Vertex when cfg has Vertex criteria, and returns
// the recorder their calls go to (nil when none is needed). What keeps a
// call from being made (no project or location, no credentials, no
// recording) is not an error of the run: the criteria are NOT_EVALUATED
// with the reason. Errors are the recorder's (inprocess.Start) and the
// Upstream's.
func StartVertex(cfg *scoring.Config, r VertexRecording) (*inprocess.Recorder, error) {
	if !NeedsVertex(cfg) {
		return nil, nil
	}
	project, location := os.Getenv("GOOGLE_CLOUD_PROJECT"), os.Getenv("GOOGLE_CLOUD_LOCATION")
	v := &Vertex{Project: project, Location: location}
	cfg.Vertex = v
	if project == "" || location == "" {
		v.Unavailable = "Vertex AI's evaluation service needs GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION (as adk eval does), also in replay: the calls are recorded under them"
		return nil, nil
	}
	dir := filepath.Join(r.JudgeDir, VertexSubdir)
	rerecord := "record the Vertex AI evaluations again: adkproxy score --judge-mode record, with application-default credentials"
	pcfg := proxy.Config{Mode: r.Mode, Dir: dir}
	if r.Mode == proxy.ModeRecord {
		u, err := r.Upstream(location)
		if err != nil {
			return nil, err
		}
		pcfg.Upstream = u
		creds, err := credentials.DetectDefault(&credentials.DetectOptions{Scopes: []string{"https://www.googleapis.com/auth/cloud-platform"}})
		if err != nil {
			v.Unavailable = "Vertex AI credentials: " + err.Error() + " (set up application-default credentials: gcloud auth application-default login, or GOOGLE_APPLICATION_CREDENTIALS)"
			return nil, nil
		}
		v.Token = func(ctx context.Context) (string, error) {
			t, err := creds.Token(ctx)
			if err != nil {
				return "", err
			}
			return t.Value, nil
		}
	} else if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		v.Unavailable = fmt.Sprintf("no Vertex AI evaluations recorded in %s: %s", dir, rerecord)
		return nil, nil
	}
	rec, err := inprocess.Start(pcfg, inprocess.Options{Rerecord: rerecord, Where: "--judge-cassettes: " + dir, Log: r.Log})
	if err != nil {
		return nil, err
	}
	v.Client = rec.HTTPClient()
	v.BaseURL = inprocess.BaseURL
	return rec, nil
}
