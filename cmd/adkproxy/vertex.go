// score's Vertex AI evaluation calls (judge.StartVertex): their flags, and
// their recorder beside the judge's.

package main

import (
	"net/url"

	"github.com/urfave/cli/v2"

	"github.com/adkproxy/adkproxy/internal/feature/eval/judge"
	"github.com/adkproxy/adkproxy/proxy"
	"github.com/adkproxy/adkproxy/scoring"
)

// scoreOnlyJudgeFlags are the judge flags of score alone (simulate has the
// others).
func scoreOnlyJudgeFlags() []cli.Flag {
	return []cli.Flag{
		judgePromptsFlag(),
		stringFlag("vertex-base-url", "", "Vertex AI `URL` the evaluation calls of safety_v1 and multi_turn_* go to in record mode (default https://LOCATION-aiplatform.googleapis.com)"),
	}
}

// judgePromptsFlag is --judge-prompts, of score and simulate.
func judgePromptsFlag() cli.Flag {
	return stringFlag("judge-prompts", "", "`DIR` of judge prompts replacing adkproxy's: <kind>.tmpl (Go template), <kind>.txt (ADK's template text, e.g. copied from your ADK installation) or ADK's simulator judge Jinja templates (<kind>.jinja)")
}

// vertexRun is the Vertex recorder of one score run.
type vertexRun struct{ *inProcess }

// startVertex starts the recorder of cfg's Vertex criteria, if any, in
// DIR/vertex in the judge's mode (judge.StartVertex).
func startVertex(c *cli.Context, cfg *scoring.Config, mode proxy.Mode, judgeDir string) (*vertexRun, error) {
	upstream := func(location string) (*url.URL, error) {
		base := c.String("vertex-base-url")
		if base == "" {
			base = "https://" + location + "-aiplatform.googleapis.com"
		}
		u, err := parseUpstream("--vertex-base-url", base)
		if err != nil {
			return nil, withCode(exitUsage, err)
		}
		return u, nil
	}
	rec, err := judge.StartVertex(cfg, judge.VertexRecording{Mode: mode, JudgeDir: judgeDir, Upstream: upstream, Log: warnings(c)})
	if err != nil || rec == nil {
		return nil, inProcessError(err)
	}
	return &vertexRun{&inProcess{rec}}, nil
}

// close writes what was recorded and gives up the lock.
func (r *vertexRun) close() error {
	if r == nil {
		return nil
	}
	return r.inProcess.close()
}
