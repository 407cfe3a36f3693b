// Reading a judged criterion's own fields: judge_model_options, rubrics
// and evaluate_intermediate_nl_responses, in snake_case or camelCase as
// ADK's pydantic models accept them.

package judge

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/genaiconf"
	"github.com/adkproxy/adkproxy/internal/base/textfmt"
	"github.com/adkproxy/adkproxy/internal/data/scenarios"
	"github.com/adkproxy/adkproxy/internal/engine/inprocess"
	"github.com/adkproxy/adkproxy/scoring"
	"google.golang.org/genai"
)

// ADK's LlmAsAJudgeCriterion defaults.
const (
	DefaultModel      = "gemini-2.5-flash"
	DefaultNumSamples = 5
)

// options are a judged criterion's settings.
type options struct {
	Model      string
	NumSamples int
	Rubrics    []rubric
	// Intermediate: hallucinations_v1 also judges the texts the agent
	// wrote before its final response.
	Intermediate bool
	// WithIntermediate is include_intermediate_responses_in_final: the
	// response judged (and the reference) is every text of the invocation,
	// not only its final response.
	WithIntermediate bool
	// Config is judge_model_options.judge_model_config: the generation
	// settings of every judge call (temperature, …); nil for none.
	Config *genai.GenerateContentConfig
	// StopSignal is per_turn_user_simulator_quality_v1's stop_signal: what
	// the simulated user writes to end the conversation.
	StopSignal string
}

// rubric is ADK's Rubric: an id and the property text the judge checks.
type rubric struct {
	ID   string
	Text string
	Type string
}

// field finds a key in its camelCase spelling or in snake_case.
func field(o map[string]any, snake string) (any, bool) {
	// As pydantic's populate_by_name: the camelCase alias first.
	if v, ok := o[textfmt.Camel(snake)]; ok {
		return v, true
	}
	v, ok := o[snake]
	return v, ok
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case int:
		return float64(n), true
	}
	return 0, false
}

// readOptions reads cr's fields; errors name the field and what it needs.
func readOptions(cr *scoring.Criterion) (options, error) {
	o := options{Model: DefaultModel, NumSamples: DefaultNumSamples, StopSignal: scenarios.StopSignal}
	f := cr.Fields
	if jmo, ok := field(f, "judge_model_options"); ok && jmo != nil {
		m, ok := jmo.(map[string]any)
		if !ok {
			return o, fmt.Errorf("criteria.%s.judge_model_options: want an object", cr.Metric)
		}
		if v, ok := field(m, "judge_model"); ok && v != nil {
			s, ok := v.(string)
			if !ok {
				return o, fmt.Errorf("criteria.%s.judge_model_options.judge_model: want a model name", cr.Metric)
			}
			if err := inprocess.CheckModel(s); err != nil {
				return o, fmt.Errorf("criteria.%s.judge_model_options.judge_model: %v", cr.Metric, err)
			}
			o.Model = s
		}
		if v, ok := field(m, "judge_model_config"); ok && v != nil {
			cfg, err := genaiconf.Parse(v)
			if err != nil {
				return o, fmt.Errorf("criteria.%s.judge_model_options.judge_model_config: %v", cr.Metric, err)
			}
			o.Config = cfg
		}
		if model, ok := inprocess.ChatModel(o.Model); ok {
			if _, err := inprocess.ChatBody(inprocess.ChatCall{Model: model, Config: o.Config}); err != nil {
				return o, fmt.Errorf("criteria.%s.judge_model_options.judge_model_config: %v (the judge model %s is called on the OpenAI-compatible endpoint)", cr.Metric, err, o.Model)
			}
		}
		if v, ok := field(m, "num_samples"); ok && v != nil {
			n, ok := number(v)
			if !ok || n < 1 || n != math.Trunc(n) || n > 100 {
				return o, fmt.Errorf("criteria.%s.judge_model_options.num_samples: want a whole number from 1 to 100", cr.Metric)
			}
			o.NumSamples = int(n)
		}
	}
	if v, ok := field(f, "evaluate_intermediate_nl_responses"); ok && v != nil {
		b, ok := v.(bool)
		if !ok {
			return o, fmt.Errorf("criteria.%s.evaluate_intermediate_nl_responses: want true or false", cr.Metric)
		}
		o.Intermediate = b
	}
	if v, ok := field(f, "include_intermediate_responses_in_final"); ok && v != nil {
		b, ok := v.(bool)
		if !ok {
			return o, fmt.Errorf("criteria.%s.include_intermediate_responses_in_final: want true or false", cr.Metric)
		}
		o.WithIntermediate = b
	}
	if v, ok := field(f, "stop_signal"); ok && v != nil && cr.Metric == scoring.PerTurnUserSimulatorQualityV1 {
		s, ok := v.(string)
		if !ok || s == "" {
			return o, fmt.Errorf("criteria.%s.stop_signal: want the text that ends a simulated conversation, such as %q", cr.Metric, scenarios.StopSignal)
		}
		o.StopSignal = s
	}
	if v, ok := field(f, "rubrics"); ok && v != nil {
		rs, err := readRubrics(v, "criteria."+cr.Metric+".rubrics")
		if err != nil {
			return o, err
		}
		o.Rubrics = rs
	}
	return o, nil
}

// readRubrics reads ADK's [{rubric_id, rubric_content: {text_property}, type?}].
func readRubrics(v any, where string) ([]rubric, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: want a list of rubrics", where)
	}
	out := make([]rubric, 0, len(list))
	for i, x := range list {
		at := fmt.Sprintf("%s[%d]", where, i)
		m, ok := x.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: want a rubric object {\"rubric_id\", \"rubric_content\": {\"text_property\"}}", at)
		}
		var r rubric
		id, _ := field(m, "rubric_id")
		if r.ID, ok = id.(string); !ok || r.ID == "" {
			return nil, fmt.Errorf("%s.rubric_id: missing or not a string", at)
		}
		content, _ := field(m, "rubric_content")
		cm, ok := content.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s.rubric_content: want {\"text_property\": \"…\"}", at)
		}
		text, _ := field(cm, "text_property")
		if r.Text, ok = text.(string); !ok || strings.TrimSpace(r.Text) == "" {
			return nil, fmt.Errorf("%s.rubric_content.text_property: missing or not a string", at)
		}
		if t, ok := field(m, "type"); ok && t != nil {
			r.Type, _ = t.(string)
		}
		out = append(out, r)
	}
	return out, nil
}

// decodeRubrics reads rubrics kept as JSON; where names them in errors.
func decodeRubrics(raw json.RawMessage, where string) ([]rubric, error) {
	var v any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("%s: %v", where, err)
	}
	return readRubrics(v, where)
}

// rubricType is the type an invocation-level rubric of each rubric-based
// metric may have (one without a type goes to both).
var rubricType = map[string]string{
	scoring.RubricBasedFinalResponseQualityV1: "FINAL_RESPONSE_QUALITY",
	scoring.RubricBasedToolUseQualityV1:       "TOOL_USE_QUALITY",
}

// rubricsFor are the criterion's rubrics, every one of them whatever its
// type, then the invocation-level ones — the eval case's (caseLevel) and
// the expected invocation's own — of the metric's type or of none: ADK
// applies rubric_type to invocation-level rubrics only. A duplicate id is
// an error (ADK's ValueError), and so is having none.
func rubricsFor(metric string, criterion, caseLevel []rubric, inv *scoring.Invocation, invN int) ([]rubric, error) {
	invocationLevel := append([]rubric(nil), caseLevel...)
	if inv != nil && len(inv.Rubrics) > 0 {
		own, err := decodeRubrics(inv.Rubrics, fmt.Sprintf("expected invocation %d: rubrics", invN))
		if err != nil {
			return nil, err
		}
		invocationLevel = append(invocationLevel, own...)
	}
	all := append([]rubric(nil), criterion...)
	for _, r := range invocationLevel {
		if r.Type == "" || strings.EqualFold(strings.TrimSpace(r.Type), rubricType[metric]) {
			all = append(all, r)
		}
	}
	var out []rubric
	seen := map[string]bool{}
	for _, r := range all {
		if seen[r.ID] {
			return nil, fmt.Errorf("invocation %d: rubric id %q is used twice; ADK refuses duplicate rubric ids", invN, r.ID)
		}
		seen[r.ID] = true
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("invocation %d: no rubrics: give them in the criterion's \"rubrics\" or the invocation's", invN)
	}
	return out, nil
}

// CheckConfig reads the options of every LLM-judged criterion of cfg, so
// that a bad one stops the run naming the file and field instead of
// costing judge calls. Rubric problems that depend on the eval set (a
// duplicate id, none at all) are found per case and leave the criterion
// NOT_EVALUATED, as ADK does.
func CheckConfig(cfg *scoring.Config) error {
	for i := range cfg.Criteria {
		cr := &cfg.Criteria[i]
		if !scoring.IsJudged(cr.Metric) || cr.Adkproxy {
			continue
		}
		if _, err := readOptions(cr); err != nil {
			if cfg.File != "" {
				return fmt.Errorf("%s: %w", cfg.File, err)
			}
			return err
		}
	}
	for i := range cfg.Adkproxy.Criteria {
		cr := &cfg.Adkproxy.Criteria[i]
		if cr.Scale == nil {
			continue
		}
		if _, err := scaleOptions(cr); err != nil {
			if cfg.File != "" {
				return fmt.Errorf("%s: %w", cfg.File, err)
			}
			return err
		}
	}
	return nil
}
