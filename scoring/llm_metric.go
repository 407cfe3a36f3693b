// LLM metrics on a scale, defined in the eval config (adkproxy.llm_metrics):
// a prompt template, a score range, a threshold and a number of samples;
// the judge (package judge) asks for a score and a rationale per sample.

package scoring

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strings"
	"text/template"

	"github.com/adkproxy/adkproxy/internal/base/gotmpl"
	"github.com/adkproxy/adkproxy/internal/base/pyjson"
	"github.com/adkproxy/adkproxy/internal/base/userfile"
)

// ScaleMetric is one adkproxy.llm_metrics definition. Its criterion has
// Scale set; the judge renders Prompt (a text/template over
// ScalePromptData) once per invocation, asks NumSamples times for a score
// from Min to Max and a rationale, and averages.
type ScaleMetric struct {
	// Prompt is the template text (from "prompt" or the file "prompt_file"
	// names, relative to the config's folder).
	Prompt string
	// Template is Prompt parsed, within gotmpl's bounds: render it with
	// Render (it runs through nothing else).
	Template   *template.Template
	Min, Max   float64
	NumSamples int
	// JudgeOptions are the definition's judge settings in the shape of
	// ADK's judge_model_options (judge_model, judge_model_config,
	// num_samples), which the judge reads as for ADK's judged metrics.
	JudgeOptions map[string]any
}

// ScalePromptData is what a metric's prompt template sees for one
// invocation: {{.UserText}}, {{.FinalResponse}}, {{.ToolCalls}} and
// {{.ToolResults}} (indented JSON), {{.Reference}} and
// {{.ReferenceToolCalls}} (the expected invocation's final response and
// tool calls; "" and [] without one), {{.State}} (the session state the
// case started from: its session_input's state as JSON, {} without one),
// {{.FinalState}} (the state at the end where simulate captured it, {}
// otherwise), {{.Invocation}} (from 1) and {{.Invocations}} (how many).
type ScalePromptData struct {
	UserText, FinalResponse, ToolCalls, ToolResults string
	Reference, ReferenceToolCalls, State            string
	FinalState                                      string
	Invocation, Invocations                         int
}

// Render is the metric's prompt for one invocation, within the bounds of
// a template read from a user's files (output 4 MiB, 5 s; see
// docs/guarantees.md): one over them is an error naming its line.
func (sm *ScaleMetric) Render(data ScalePromptData) (string, error) {
	return gotmpl.Execute(sm.Template, "", data, gotmpl.Limits{})
}

var metricNameRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]*$`)

// parseLLMMetrics reads adkproxy.llm_metrics: an object of definitions, or
// a string naming a JSON file holding one (relative to the config's
// folder). Each becomes an adkproxy criterion, after "criteria".
func (cfg *Config) parseLLMMetrics(n pyjson.Value) error {
	if name, ok := n.V.(string); ok {
		path := name
		if !filepath.IsAbs(path) {
			path = filepath.Join(cfg.Dir, path)
		}
		data, err := userfile.Read(path)
		if err != nil {
			return n.Errorf("reading the metric definitions: %v", err)
		}
		if n, err = pyjson.Decode(path, data); err != nil {
			return err
		}
	}
	o, err := n.Object()
	if err != nil {
		return err
	}
	for _, name := range o.Keys() {
		mn := n.At(name)
		mn.V = o.Val(name)
		if !metricNameRE.MatchString(name) {
			return mn.Errorf("a metric name is letters, digits, _ . and -, starting with a letter")
		}
		if _, known := metrics[name]; known || isADKMetric(name) || cfg.criterion(name) != nil || cfg.adkproxyCriterion(name) != nil {
			return mn.Errorf("%s is already a metric: give the definition another name", name)
		}
		cr, err := cfg.parseScaleMetric(name, mn)
		if err != nil {
			return err
		}
		cfg.Adkproxy.Criteria = append(cfg.Adkproxy.Criteria, cr)
	}
	return nil
}

func (cfg *Config) adkproxyCriterion(metric string) *Criterion {
	for i := range cfg.Adkproxy.Criteria {
		if cfg.Adkproxy.Criteria[i].Metric == metric {
			return &cfg.Adkproxy.Criteria[i]
		}
	}
	return nil
}

func (cfg *Config) parseScaleMetric(name string, n pyjson.Value) (Criterion, error) {
	o, err := n.Object()
	if err != nil {
		return Criterion{}, err
	}
	if err := n.CheckKeys(o, "prompt", "prompt_file", "min", "max", "threshold", "num_samples", "judge_model", "judge_model_config", "description"); err != nil {
		return Criterion{}, err
	}
	sm := &ScaleMetric{Min: 0, Max: 5, NumSamples: 1}
	cr := Criterion{Metric: name, Adkproxy: true, Stat: "mean", Scale: sm, Fields: map[string]any{}}
	p, hasPrompt := n.Field(o, "prompt")
	f, hasFile := n.Field(o, "prompt_file")
	switch {
	case hasPrompt == hasFile:
		return cr, n.Errorf("give the judge's prompt as \"prompt\" (a template) or \"prompt_file\" (a file holding one), one of them")
	case hasPrompt:
		if sm.Prompt, err = p.Str(); err != nil {
			return cr, err
		}
	default:
		file, err := f.Str()
		if err != nil {
			return cr, err
		}
		path := file
		if !filepath.IsAbs(path) {
			path = filepath.Join(cfg.Dir, path)
		}
		b, err := userfile.Read(path)
		if err != nil {
			return cr, f.Errorf("%v", err)
		}
		sm.Prompt = string(b)
	}
	if strings.TrimSpace(sm.Prompt) == "" {
		return cr, n.Errorf("the prompt is empty")
	}
	if sm.Template, err = gotmpl.Parse(name, sm.Prompt, "missingkey=error"); err != nil {
		return cr, n.Errorf("the prompt is not a valid template: %v", err)
	}
	// A template naming a field the data has not fails now, not mid-run.
	if _, err := sm.Render(ScalePromptData{}); err != nil {
		return cr, n.Errorf("the prompt does not render: %v (fields: .UserText, .FinalResponse, .ToolCalls, .ToolResults, .Reference, .ReferenceToolCalls, .State, .FinalState, .Invocation, .Invocations)", err)
	}
	num := func(key string, into *float64) error {
		if v, ok := n.Field(o, key); ok {
			x, err := v.Number()
			if err != nil {
				return err
			}
			*into = x
		}
		return nil
	}
	if err := num("min", &sm.Min); err != nil {
		return cr, err
	}
	if err := num("max", &sm.Max); err != nil {
		return cr, err
	}
	if !(sm.Min < sm.Max) || math.IsInf(sm.Max-sm.Min, 0) {
		return cr, n.Errorf("min %g must be below max %g", sm.Min, sm.Max)
	}
	t, ok := n.Field(o, "threshold")
	if !ok {
		cr.Informational = true
	} else {
		if cr.Threshold, err = t.Number(); err != nil {
			return cr, err
		}
		if cr.Threshold < sm.Min || cr.Threshold > sm.Max {
			return cr, t.Errorf("the threshold %g is outside the scale %g to %g", cr.Threshold, sm.Min, sm.Max)
		}
		cr.Fields["threshold"] = cr.Threshold
	}
	var samples float64 = 1
	if err := num("num_samples", &samples); err != nil {
		return cr, err
	}
	if samples < 1 || samples > 100 || samples != math.Trunc(samples) {
		return cr, n.At("num_samples").Errorf("want a whole number from 1 to 100, got %g", samples)
	}
	sm.NumSamples = int(samples)
	cr.Fields["min"], cr.Fields["max"], cr.Fields["num_samples"] = sm.Min, sm.Max, sm.NumSamples
	sm.JudgeOptions = map[string]any{"num_samples": sm.NumSamples}
	for _, k := range []string{"judge_model", "judge_model_config"} {
		if v, ok := n.Field(o, k); ok {
			sm.JudgeOptions[k] = pyjson.Plain(v.V)
		}
	}
	cr.Fields["judge_model_options"] = sm.JudgeOptions
	if cr.Informational {
		cr.Fields = nil
	}
	return cr, nil
}

// String names the scale for messages: "0–5".
func (sm *ScaleMetric) String() string { return fmt.Sprintf("%g–%g", sm.Min, sm.Max) }
