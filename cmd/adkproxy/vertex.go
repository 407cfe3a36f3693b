// score's Vertex AI evaluation calls (safety_v1, multi_turn_*): their own
// in-process recorder beside the judge's, the project and location ADK
// reads, and application-default credentials when recording.

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"cloud.google.com/go/auth/credentials"
	"github.com/urfave/cli/v2"

	"github.com/adkproxy/adkproxy/internal/feature/eval/judge"
	"github.com/adkproxy/adkproxy/proxy"
	"github.com/adkproxy/adkproxy/scoring"
)

// vertexSubdir is where the Vertex calls go inside --judge-cassettes.
const vertexSubdir = "vertex"

// scoreOnlyJudgeFlags are the judge flags of score alone (simulate has the
// others).
func scoreOnlyJudgeFlags() []cli.Flag {
	return []cli.Flag{
		stringFlag("judge-prompts", "", "`DIR` of judge prompts replacing adkproxy's: <kind>.tmpl (Go template), <kind>.txt (ADK's template text, e.g. copied from your ADK installation) or ADK's simulator judge Jinja templates (<kind>.jinja)"),
		stringFlag("vertex-base-url", "", "Vertex AI `URL` the evaluation calls of safety_v1 and multi_turn_* go to in record mode (default https://LOCATION-aiplatform.googleapis.com)"),
	}
}

// vertexRun is the Vertex recorder of one score run.
type vertexRun struct{ *inProcess }

// needsVertex says whether cfg has a criterion computed by Vertex AI.
func needsVertex(cfg *scoring.Config) bool {
	for _, cr := range cfg.Criteria {
		if scoring.IsVertex(cr.Metric) && !cr.Adkproxy {
			return true
		}
	}
	return false
}

// startVertex sets cfg.Vertex when cfg has Vertex criteria: their calls are
// recorded into, or replayed from, DIR/vertex in the judge's mode. What
// keeps a call from being made (no project or location, no credentials, no
// recording) is not an error of the run: the criteria are NOT_EVALUATED
// with the reason.
func startVertex(c *cli.Context, cfg *scoring.Config, mode proxy.Mode, judgeDir string) (*vertexRun, error) {
	if !needsVertex(cfg) {
		return nil, nil
	}
	project, location := os.Getenv("GOOGLE_CLOUD_PROJECT"), os.Getenv("GOOGLE_CLOUD_LOCATION")
	v := &judge.Vertex{Project: project, Location: location}
	cfg.Vertex = v
	if project == "" || location == "" {
		v.Unavailable = "Vertex AI's evaluation service needs GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION (as adk eval does), also in replay: the calls are recorded under them"
		return nil, nil
	}
	dir := filepath.Join(judgeDir, vertexSubdir)
	rerecord := "record the Vertex AI evaluations again: adkproxy score --judge-mode record, with application-default credentials"
	pcfg := proxy.Config{Mode: mode, Dir: dir}
	if mode == proxy.ModeRecord {
		base := c.String("vertex-base-url")
		if base == "" {
			base = "https://" + location + "-aiplatform.googleapis.com"
		}
		u, err := parseUpstream("--vertex-base-url", base)
		if err != nil {
			return nil, withCode(exitUsage, err)
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
	rec, err := startInProcess(c, pcfg, rerecord, "--judge-cassettes: "+dir, "")
	if err != nil {
		return nil, err
	}
	v.Client = rec.httpClient()
	v.BaseURL = inProcessBaseURL
	return &vertexRun{rec}, nil
}

// close writes what was recorded and gives up the lock.
func (r *vertexRun) close() error {
	if r == nil {
		return nil
	}
	return r.inProcess.close()
}
