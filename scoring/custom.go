// Custom metrics: the custom_metrics entries of an eval config, parsing them,
// and running their commands once per case under a timeout.

package scoring

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/adkproxy/adkproxy/internal/base/pyjson"
	"github.com/adkproxy/adkproxy/internal/base/textfmt"
	"github.com/adkproxy/adkproxy/internal/data/evalset"
)

// CustomMetric is a custom_metrics entry: a metric in any language. Its
// "command" (an argv list, run in the configuration file's folder, with
// ADKPROXY_METRIC and ADKPROXY_CASE in its environment) runs once per case
// and receives on stdin the arguments ADK passes to a custom metric
// function (newer ADK's four, conversation_scenario included), with ADK's
// field names and Invocation JSON (snake_case, as ADK writes it):
//
//	{"eval_metric": {"metric_name": "my_metric", "threshold": 0.5,
//	                 "criterion": {"threshold": 0.5, …}, "custom_function_path": "pkg.fn" | null},
//	 "actual_invocations": [{"invocation_id": "…",
//	                         "user_content": {"parts": [{"text": "…"}], "role": "user"},
//	                         "final_response": {"parts": [{"text": "…"}], "role": "model"} | null,
//	                         "intermediate_data": {"tool_uses": [{"id"?, "name", "args"}],
//	                                               "tool_responses": [{"id"?, "name", "response"}],
//	                                               "intermediate_responses": [["agent", [{"text": "…"}]]]},
//	                         "creation_timestamp": 0}],
//	 "expected_invocations": [ … ] | null,
//	 "conversation_scenario": { … } | null}
//
// and prints ADK's EvaluationResult on stdout:
//
//	{"overall_score": 0.75 | null, "overall_eval_status": 1,
//	 "per_invocation_results": [{"score": 1.0, "eval_status": 1, "reason"?: "…"}],
//	 "reason"?: "…", "details"?: {…}}
//
// Statuses are ADK's numbers (1 PASSED, 2 FAILED, 3 NOT_EVALUATED) or
// their names, or newer ADK's INFORMATIONAL (the score is reported and the
// metric skipped like NOT_EVALUATED); a missing status is derived from the score and the
// threshold, as for every other metric. camelCase keys are accepted too.
// "reason" and "details" are adkproxy's additions for explaining a score.
// A command that cannot start, exits non-zero, prints anything else, or
// runs longer than its timeout (adkproxy.custom_timeout_s, default 60 s;
// "timeout_s" of the metric) leaves the metric NOT_EVALUATED with the
// reason; the run goes on. On timeout the command's whole process group
// is killed.
type CustomMetric struct {
	Name string
	// Command is the argv run for each case (adkproxy).
	Command []string
	// CodeConfig is code_config.name, the Python function ADK calls; run
	// by runPythonMetric when there is no Command.
	CodeConfig  string
	Description string
	MetricInfo  map[string]any
	// Timeout overrides Settings.CustomTimeout when > 0 ("timeout_s").
	Timeout time.Duration
	// From MetricInfo, checked when read.
	infoDescription string
	interval        metricInterval
}

// defaultCustomTimeout is how long a custom metric command may run unless
// configured otherwise.
const defaultCustomTimeout = 60 * time.Second

func (cfg *Config) parseCustomMetrics(n pyjson.Value) error {
	o, err := n.Object()
	if err != nil {
		return err
	}
	for _, name := range o.Keys() {
		mn := n.At(name)
		mn.V = o.Val(name)
		mo, err := mn.Object()
		if err != nil {
			return err
		}
		if err := mn.CheckKeys(mo, "code_config", "codeConfig", "command", "metric_info", "metricInfo", "description", "timeout_s"); err != nil {
			return err
		}
		cm := CustomMetric{Name: name}
		if cc, ok := mn.PyField(mo, "code_config"); ok && cc.V != nil {
			co, err := cc.Object()
			if err != nil {
				return err
			}
			if a, ok := cc.Field(co, "args"); ok && a.V != nil {
				return a.Errorf("not allowed (ADK rejects code_config.args for custom metrics)")
			}
			if nn, ok := cc.Field(co, "name"); ok {
				if cm.CodeConfig, err = nn.Str(); err != nil {
					return err
				}
			}
		}
		if c, ok := mn.Field(mo, "command"); ok {
			l, err := c.List()
			if err != nil {
				return err
			}
			if len(l) == 0 {
				return c.Errorf("empty: give the program and its arguments, e.g. [\"python3\", \"my_metric.py\"]")
			}
			for i := range l {
				s, err := c.Elem(l, i).Str()
				if err != nil {
					return err
				}
				cm.Command = append(cm.Command, s)
			}
		}
		if cm.Command == nil && cm.CodeConfig == "" {
			return mn.Errorf("needs \"command\" (an argv list adkproxy runs) or code_config.name (ADK's Python function)")
		}
		if d, ok := mn.Field(mo, "description"); ok {
			if cm.Description, err = d.OptStr(); err != nil {
				return err
			}
		}
		if mi, ok := mn.PyField(mo, "metric_info"); ok && mi.V != nil {
			if _, err := mi.Object(); err != nil {
				return err
			}
			cm.MetricInfo = pyjson.Plain(mi.V).(map[string]any)
			if cm.infoDescription, cm.interval, err = parseMetricInfo(mi); err != nil {
				return err
			}
		}
		if t, ok := mn.Field(mo, "timeout_s"); ok {
			if cm.Timeout, err = seconds(t); err != nil {
				return err
			}
		}
		cfg.CustomMetrics[name] = cm
	}
	return nil
}

// runCustomMetric computes a custom metric (see CustomMetric): its
// command, or without one its Python function (runPythonMetric).
func runCustomMetric(ctx context.Context, cfg *Config, cm *CustomMetric, cr *Criterion, c *Case, m *MetricResult) {
	env := []string{"ADKPROXY_METRIC=" + cm.Name, "ADKPROXY_CASE=" + c.ID}
	if cfg.ModelEndpoint != nil {
		more, done, err := cfg.ModelEndpoint.Open(c, cm.Name)
		if err != nil {
			m.Reason = err.Error()
			return
		}
		defer done()
		env = append(env, more...)
	}
	if len(cm.Command) == 0 {
		runPythonMetric(ctx, cfg, cm, cr, c, m, env)
	} else {
		runCommandMetric(ctx, cfg, cm, cr, c, m, env)
	}
	checkMetricInfo(cm, m)
	if cm.Description != "" {
		if m.Details == nil {
			m.Details = map[string]any{}
		}
		m.Details["description"] = cm.Description
	}
}

// customTimeout is how long a custom metric may run.
func customTimeout(cfg *Config, cm *CustomMetric) time.Duration {
	timeout := cfg.Adkproxy.CustomTimeout
	if cm.Timeout > 0 {
		timeout = cm.Timeout
	}
	if timeout <= 0 {
		timeout = defaultCustomTimeout
	}
	return timeout
}

func runCommandMetric(ctx context.Context, cfg *Config, cm *CustomMetric, cr *Criterion, c *Case, m *MetricResult, env []string) {
	input, err := customInput(cm, cr, c)
	if err != nil {
		m.Reason = "custom metric input: " + err.Error()
		return
	}
	out, err := runCommand(ctx, cfg.Dir, cm.Command, input, customTimeout(cfg, cm), env...)
	what := fmt.Sprintf("custom metric command %s", argvString(cm.Command))
	if err != nil {
		m.Reason = what + ": " + err.Error()
		return
	}
	if err := parseCustomOutput(out, c, m); err != nil {
		m.Reason = what + " printed no valid result: " + err.Error()
		m.Score, m.PerInvocation, m.Status, m.Details = nil, nil, 0, nil
		return
	}
}

func argvString(argv []string) string {
	b, _ := json.Marshal(argv)
	return string(b)
}

type customRequest struct {
	EvalMetric           customEvalMetric      `json:"eval_metric"`
	ActualInvocations    []*evalset.Invocation `json:"actual_invocations"`
	ExpectedInvocations  []*evalset.Invocation `json:"expected_invocations"`
	ConversationScenario json.RawMessage       `json:"conversation_scenario"`
}

type customEvalMetric struct {
	MetricName         string         `json:"metric_name"`
	Threshold          float64        `json:"threshold"`
	Criterion          map[string]any `json:"criterion"`
	CustomFunctionPath *string        `json:"custom_function_path"`
}

// toCustomInvocations gives a custom metric the invocations as ADK writes
// them, call ids included (the metric may want to pair calls and results).
func toCustomInvocations(invs []Invocation) []*evalset.Invocation {
	if invs == nil {
		return nil
	}
	out := make([]*evalset.Invocation, len(invs))
	for i := range invs {
		out[i] = outADKInvocation(&invs[i], true)
	}
	return out
}

func customInput(cm *CustomMetric, cr *Criterion, c *Case) ([]byte, error) {
	req := customRequest{
		EvalMetric:           customEvalMetric{MetricName: cm.Name, Threshold: cr.Threshold, Criterion: cr.Fields},
		ActualInvocations:    toCustomInvocations(c.Actual),
		ExpectedInvocations:  toCustomInvocations(c.Expected),
		ConversationScenario: c.Scenario,
	}
	if req.ActualInvocations == nil {
		req.ActualInvocations = []*evalset.Invocation{}
	}
	if cm.CodeConfig != "" {
		req.EvalMetric.CustomFunctionPath = &cm.CodeConfig
	}
	if len(req.ConversationScenario) == 0 {
		req.ConversationScenario = json.RawMessage("null")
	}
	return json.Marshal(req)
}

// parseCustomOutput reads ADK's EvaluationResult from a command's stdout.
func parseCustomOutput(out []byte, c *Case, m *MetricResult) error {
	if len(bytes.TrimSpace(out)) == 0 {
		return errors.New("stdout is empty")
	}
	root, err := pyjson.Decode("stdout", out)
	if err != nil {
		return err
	}
	o, err := root.Object()
	if err != nil {
		return err
	}
	sn, ok := root.PyField(o, "overall_score")
	if !ok {
		return sn.Errorf("missing")
	}
	if m.Score, err = optScore(sn); err != nil {
		return err
	}
	if st, ok := root.PyField(o, "overall_eval_status"); ok && st.V != nil {
		var info bool
		if m.Status, info, err = parseStatus(st); err != nil {
			return err
		}
		m.Informational = m.Informational || info
	}
	if r, ok := root.Field(o, "reason"); ok {
		if m.Reason, err = r.OptStr(); err != nil {
			return err
		}
	}
	if d, ok := root.Field(o, "details"); ok && d.V != nil {
		if _, err := d.Object(); err != nil {
			return err
		}
		m.Details = pyjson.Plain(d.V).(map[string]any)
	}
	if pn, ok := root.PyField(o, "per_invocation_results"); ok && pn.V != nil {
		list, err := pn.List()
		if err != nil {
			return err
		}
		for i := range list {
			en := pn.Elem(list, i)
			eo, err := en.Object()
			if err != nil {
				return err
			}
			s := InvocationScore{Index: i}
			if sc, ok := en.Field(eo, "score"); ok {
				if s.Score, err = optScore(sc); err != nil {
					return err
				}
			}
			if st, ok := en.PyField(eo, "eval_status"); ok && st.V != nil {
				if s.Status, _, err = parseStatus(st); err != nil {
					return err
				}
			}
			if r, ok := en.Field(eo, "reason"); ok {
				if s.Reason, err = r.OptStr(); err != nil {
					return err
				}
			}
			if i >= len(c.Actual) {
				return en.Errorf("more per-invocation results than the case's %s", textfmt.Plural(len(c.Actual), "invocation"))
			}
			m.PerInvocation = append(m.PerInvocation, s)
		}
	}
	return nil
}

func optScore(n pyjson.Value) (*float64, error) {
	if n.V == nil {
		return nil, nil
	}
	f, err := n.Number()
	if err != nil {
		return nil, err
	}
	if !finite(f) {
		return nil, n.Errorf("%g is not a finite score", f)
	}
	return Float(f), nil
}

// parseStatus reads an eval status; ADK's newer INFORMATIONAL (a value
// that never passes or fails) reads as NOT_EVALUATED with informational
// true, so it is skipped like NOT_EVALUATED.
func parseStatus(n pyjson.Value) (EvalStatus, bool, error) {
	switch v := n.V.(type) {
	case json.Number:
		i, err := v.Int64()
		if err == nil && i >= 1 && i <= 3 {
			return EvalStatus(i), false, nil
		}
	case string:
		switch strings.ToUpper(strings.TrimSpace(v)) {
		case "PASSED":
			return Passed, false, nil
		case "FAILED":
			return Failed, false, nil
		case "NOT_EVALUATED":
			return NotEvaluated, false, nil
		case "INFORMATIONAL":
			return NotEvaluated, true, nil
		}
	}
	return 0, false, n.Errorf("%s is not an eval status (1 PASSED, 2 FAILED, 3 NOT_EVALUATED, or INFORMATIONAL)", pyjson.Describe(n.V))
}

// maxCustomOutput bounds what a custom metric may print.
const maxCustomOutput = 64 << 20

// runCommand runs argv with input on stdin and returns its stdout. Errors
// say what went wrong, with the end of stderr.
func runCommand(ctx context.Context, dir string, argv []string, input []byte, timeout time.Duration, env ...string) ([]byte, error) {
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(runCtx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = bytes.NewReader(input)
	stdout := &capBuffer{limit: maxCustomOutput}
	stderr := &tailBuffer{limit: 2048}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	killGroup(cmd)
	cmd.WaitDelay = 2 * time.Second
	start := time.Now()
	err := cmd.Run()
	tail := strings.TrimSpace(stderr.String())
	if tail != "" {
		tail = "; stderr: " + textfmt.Truncate(tail, 500)
	}
	switch {
	case errors.Is(runCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil:
		return nil, fmt.Errorf("timed out after %s (adkproxy.custom_timeout_s, or timeout_s of the metric)%s", timeout, tail)
	case ctx.Err() != nil:
		return nil, fmt.Errorf("cancelled after %s: %v", time.Since(start).Round(time.Millisecond), ctx.Err())
	case stdout.overflow:
		return nil, fmt.Errorf("printed more than %d bytes", maxCustomOutput)
	case err != nil:
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			return nil, fmt.Errorf("failed: %v%s", exitErr, tail)
		}
		return nil, fmt.Errorf("could not run: %v", err)
	}
	return stdout.Bytes(), nil
}

// capBuffer keeps at most limit bytes and notes an overflow.
type capBuffer struct {
	bytes.Buffer
	limit    int
	overflow bool
}

func (b *capBuffer) Write(p []byte) (int, error) {
	if b.Len()+len(p) > b.limit {
		b.overflow = true
		return len(p), nil
	}
	return b.Buffer.Write(p)
}

// tailBuffer keeps the last limit bytes written.
type tailBuffer struct {
	buf   []byte
	limit int
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.buf = append(b.buf, p...)
	if len(b.buf) > b.limit {
		b.buf = append(b.buf[:0], b.buf[len(b.buf)-b.limit:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string { return string(b.buf) }
