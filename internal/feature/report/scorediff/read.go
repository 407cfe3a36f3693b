// Reading a score result file: only what the comparison needs.

package scorediff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/textfmt"
	"github.com/adkproxy/adkproxy/internal/base/userfile"
)

// Run is one result file: its label and each case's criteria.
type Run struct {
	// Label is the file's "label" (score --label), else its base name.
	Label string
	Path  string
	Cases []Case
}

// Case is one eval case's verdicts.
type Case struct {
	ID      string
	Status  int // ADK's: 1 PASSED, 2 FAILED, 3 NOT_EVALUATED
	Metrics []Metric
}

// Metric is one criterion's verdict on a case.
type Metric struct {
	Name          string
	Score         *float64
	Status        int
	Informational bool
}

// IsResultFile tells whether path is a file holding an EvalSetResult (a
// JSON object, or a JSON string holding one as ADK up to 1.21 wrote it,
// with "eval_case_results"), rather than a cassette or a folder.
func IsResultFile(path string) bool {
	info, err := os.Stat(path)
	if err != nil || info.IsDir() {
		return false
	}
	b, err := userfile.Read(path)
	if err != nil {
		return false
	}
	t := bytes.TrimSpace(b)
	if len(t) == 0 || (t[0] != '{' && t[0] != '"') {
		return false
	}
	// The key is enough: a result with a bad value is reported by Load,
	// not taken for a cassette. Keys match as encoding/json matches them.
	var doc map[string]json.RawMessage
	if unwrap(t, &doc) != nil {
		return false
	}
	for k := range doc {
		if strings.EqualFold(k, "evalCaseResults") {
			return true
		}
	}
	return false
}

// resultDoc is the part of an EvalSetResult the comparison reads, keys in
// camelCase: decode re-spells snake_case ones.
type resultDoc struct {
	Label string    `json:"label"`
	Cases []rawCase `json:"evalCaseResults"`
}

func decode(b []byte) (*resultDoc, error) {
	var doc resultDoc
	if err := unwrap(b, &doc); err != nil {
		return nil, fmt.Errorf("reading the score result (adkproxy score --format json): %w", err)
	}
	if doc.Cases == nil {
		return nil, fmt.Errorf("no eval_case_results: not a score result (adkproxy score --format json)")
	}
	return &doc, nil
}

// unwrap decodes b into v, first decoding a JSON string holding the
// document (ADK's double encoding up to v1.21), with its keys in
// camelCase whichever spelling they had (textfmt.CamelKeys).
func unwrap(b []byte, v any) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var inner string
		if err := json.Unmarshal(b, &inner); err != nil {
			return err
		}
		b = []byte(inner)
	}
	if !json.Valid(b) {
		return json.Unmarshal(b, v) // its own error
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber() // numbers go back as they were written
	var doc any
	d.Decode(&doc)
	camel, _ := json.Marshal(textfmt.CamelKeys(doc))
	return json.Unmarshal(camel, v)
}

// Load reads a result file. Keys are read in snake_case or camelCase, as
// ADK's pydantic models accept them.
func Load(path string) (*Run, error) {
	b, err := userfile.Read(path)
	if err != nil {
		return nil, err
	}
	doc, err := decode(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	run := &Run{Label: strings.TrimSpace(doc.Label), Path: path}
	if run.Label == "" {
		run.Label = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	for i, rc := range doc.Cases {
		c, err := rc.read()
		if err != nil {
			return nil, fmt.Errorf("%s: eval_case_results[%d]: %w", path, i, err)
		}
		run.Cases = append(run.Cases, c)
	}
	return run, nil
}

type rawCase struct {
	EvalID  string      `json:"evalId"`
	Status  status      `json:"finalEvalStatus"`
	Overall []rawMetric `json:"overallEvalMetricResults"`
}

type rawMetric struct {
	Name    string         `json:"metricName"`
	Score   *float64       `json:"score"`
	Status  status         `json:"evalStatus"`
	Details map[string]any `json:"details"`
}

func (rc rawCase) read() (Case, error) {
	c := Case{ID: rc.EvalID}
	if rc.Status.v != nil {
		c.Status = *rc.Status.v
	}
	for j, rm := range rc.Overall {
		m := Metric{Name: rm.Name, Score: rm.Score}
		if m.Name == "" {
			return Case{}, fmt.Errorf("overall_eval_metric_results[%d]: no metric_name", j)
		}
		if rm.Status.v != nil {
			m.Status = *rm.Status.v
		}
		m.Informational, _ = rm.Details["informational"].(bool)
		m.Informational = m.Informational || rm.Status.info
		c.Metrics = append(c.Metrics, m)
	}
	return c, nil
}

// status is an EvalStatus as ADK writes it (an integer), also read from
// 1.0 or from its name ("PASSED").
type status struct {
	v    *int
	info bool // "INFORMATIONAL"
}

func (s *status) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err == nil {
		if f != float64(int(f)) {
			return fmt.Errorf("status %s: want 1 (PASSED), 2 (FAILED) or 3 (NOT_EVALUATED)", b)
		}
		n := int(f)
		s.v = &n
		return nil
	}
	var name string
	if err := json.Unmarshal(b, &name); err != nil {
		return fmt.Errorf("status %s: want 1 (PASSED), 2 (FAILED) or 3 (NOT_EVALUATED)", b)
	}
	n, ok := map[string]int{"PASSED": passed, "FAILED": 2, "NOT_EVALUATED": 3}[strings.ToUpper(name)]
	if !ok {
		n = 0 // another status: not a pass
		s.info = strings.EqualFold(name, "INFORMATIONAL")
	}
	s.v = &n
	return nil
}

const passed = 1
