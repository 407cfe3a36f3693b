// ADK's Vertex AI metrics (safety_v1, multi_turn_*_v1): one call per
// invocation to the Gen AI Evaluation service's evaluateInstances, through
// the recorder, with ADK's quirks in turning scores into statuses.

package judge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"

	"github.com/adkproxy/adkproxy/scoring"
)

// Vertex implements scoring.Judge for the metrics of scoring.IsVertex.
type Vertex struct {
	// Client sends the calls (to the recorder), BaseURL is where.
	Client  *http.Client
	BaseURL string
	// Project and Location name the Vertex AI location
	// (GOOGLE_CLOUD_PROJECT, GOOGLE_CLOUD_LOCATION, as ADK reads them).
	Project, Location string
	// Token returns an OAuth access token for a call (record mode); nil
	// in replay, where no call leaves adkproxy.
	Token func(ctx context.Context) (string, error)
	// Unavailable, when set, is why no call can be made (no project, no
	// credentials): every Vertex metric is NOT_EVALUATED with it.
	Unavailable string
}

// vertexRequest is EvaluateInstancesRequest with one predefined metric
// and one instance.
type vertexRequest struct {
	Location string         `json:"location"`
	Metrics  []vertexMetric `json:"metrics"`
	Instance vertexInstance `json:"instance"`
}

type vertexMetric struct {
	PredefinedMetricSpec struct {
		MetricSpecName string `json:"metricSpecName"`
	} `json:"predefinedMetricSpec"`
}

type vertexInstance struct {
	Prompt    *vertexText `json:"prompt,omitempty"`
	Response  *vertexText `json:"response,omitempty"`
	Reference *vertexText `json:"reference,omitempty"`
}

type vertexText struct {
	Text string `json:"text"`
}

// vertexResponse is EvaluateInstancesResponse's metricResults.
type vertexResponse struct {
	MetricResults []struct {
		Score       *float64 `json:"score"`
		Explanation string   `json:"explanation"`
		Error       *struct {
			Message string `json:"message"`
		} `json:"error"`
	} `json:"metricResults"`
}

// Evaluate implements scoring.Judge: per invocation one evaluateInstances
// call with the metric's predefined spec (its ADK name) and the instance
// ADK builds — prompt the user's text, response the final response,
// reference the expected final response when there is one — then ADK's
// rules: a score that is missing, NaN or 0 counts as no score (ADK tests
// the score's truth), so that invocation is NOT_EVALUATED; the overall score
// is the mean of the others, its status PASSED when ≥ threshold. A call
// replay cannot answer makes the whole metric NOT_EVALUATED naming the
// case, invocation and criterion; an error answer only its invocation.
func (v *Vertex) Evaluate(ctx context.Context, cr *scoring.Criterion, c *scoring.Case, m *scoring.MetricResult) {
	if v.Unavailable != "" {
		m.Reason = v.Unavailable
		return
	}
	if len(c.Actual) == 0 {
		m.Reason = "no invocations to evaluate"
		return
	}
	status := func(score *float64) scoring.EvalStatus {
		switch {
		case score == nil || *score == 0:
			return scoring.NotEvaluated
		case *score >= cr.Threshold:
			return scoring.Passed
		}
		return scoring.Failed
	}
	total, n := 0.0, 0
	for i := range c.Actual {
		var exp *scoring.Invocation
		if i < len(c.Expected) {
			exp = &c.Expected[i]
		}
		score, note, err := v.call(ctx, cr.Metric, c, i, exp)
		if err != nil {
			if errors.Is(err, ErrNotRecorded) || ctx.Err() != nil {
				m.Score, m.PerInvocation, m.Notes = nil, nil, nil
				m.Reason = err.Error()
				return
			}
			m.PerInvocation = append(m.PerInvocation, scoring.InvocationScore{Index: i, Status: scoring.NotEvaluated,
				Reason: fmt.Sprintf("invocation %d: not evaluated: %v", i+1, err)})
			continue
		}
		p := scoring.InvocationScore{Index: i, Score: score, Status: status(score)}
		if note != "" {
			p.Details = map[string]any{"explanation": note}
			m.Notes = append(m.Notes, fmt.Sprintf("invocation %d: %s", i+1, short(note)))
		}
		if p.Status == scoring.NotEvaluated && score != nil {
			p.Reason = fmt.Sprintf("invocation %d: score 0 counts as no score, as in ADK", i+1)
		}
		m.PerInvocation = append(m.PerInvocation, p)
		if p.Status != scoring.NotEvaluated {
			total += *score
			n++
		}
	}
	if n > 0 {
		m.Score = scoring.Float(total / float64(n))
	}
	m.Status = status(m.Score)
	if m.Score == nil && m.Reason == "" {
		m.Reason = "no invocation got a score from Vertex AI"
	}
}

// call makes invocation i's evaluateInstances call.
func (v *Vertex) call(ctx context.Context, metric string, c *scoring.Case, i int, exp *scoring.Invocation) (*float64, string, error) {
	k := key{Case: c.ID, Invocation: i + 1, Criterion: metric, Sample: "vertex"}
	act := &c.Actual[i]
	req := vertexRequest{Location: "projects/" + v.Project + "/locations/" + v.Location}
	req.Metrics = make([]vertexMetric, 1)
	req.Metrics[0].PredefinedMetricSpec.MetricSpecName = metric
	req.Instance.Prompt = &vertexText{Text: act.UserText}
	req.Instance.Response = &vertexText{Text: act.FinalResponse}
	if exp != nil {
		req.Instance.Reference = &vertexText{Text: exp.FinalResponse}
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, "", err
	}
	url := strings.TrimRight(v.BaseURL, "/") + "/v1/" + req.Location + ":evaluateInstances"
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, "", err
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("X-Adkproxy-Cassette", headerSafe(CassetteName(c)))
	hr.Header.Set("X-Adkproxy-Invocation", k.String())
	if v.Token != nil {
		tok, err := v.Token(ctx)
		if err != nil {
			return nil, "", fmt.Errorf("Vertex AI credentials: %w", err)
		}
		hr.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := v.Client.Do(hr)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", k.describeVertex(), err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if resp.StatusCode != http.StatusOK {
		msg := strings.TrimSpace(string(data))
		var e struct {
			Error struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(data, &e) == nil && e.Error.Message != "" {
			msg = e.Error.Message
		}
		if strings.HasPrefix(msg, "adkproxy: ") {
			return nil, "", fmt.Errorf("%s: %w: %s", k.describeVertex(), ErrNotRecorded, strings.TrimPrefix(msg, "adkproxy: "))
		}
		return nil, "", fmt.Errorf("%s: Vertex AI answered %d: %s", k.describeVertex(), resp.StatusCode, msg)
	}
	var out vertexResponse
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, "", fmt.Errorf("%s: Vertex AI's answer: %v", k.describeVertex(), err)
	}
	if len(out.MetricResults) == 0 {
		return nil, "", nil
	}
	r := out.MetricResults[0]
	if r.Error != nil && r.Error.Message != "" {
		return nil, "", fmt.Errorf("%s: Vertex AI: %s", k.describeVertex(), r.Error.Message)
	}
	if r.Score != nil && !finite(*r.Score) {
		return nil, r.Explanation, nil
	}
	return r.Score, r.Explanation, nil
}

// describeVertex names a Vertex call for a person.
func (k key) describeVertex() string {
	return fmt.Sprintf("case %q, invocation %d, %s (Vertex AI evaluation)", k.Case, k.Invocation, k.Criterion)
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
