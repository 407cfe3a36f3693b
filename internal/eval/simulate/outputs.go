// The outputs of a run in --out DIR, each written atomically:
// sessions/<case>.json, simulated.evalset.json, question_answer_log.md,
// sessions.csv, sessions.jsonl and eval_summary.json.

package simulate

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/textfmt"
	"github.com/adkproxy/adkproxy/scoring"
)

// EvalSetID is the id of the eval set simulate writes.
const EvalSetID = "simulated"

// Output file names in the --out folder.
const (
	SessionsDir  = "sessions"
	EvalSetFile  = "simulated.evalset.json"
	QALogFile    = "question_answer_log.md"
	SessionsCSV  = "sessions.csv"
	SessionsJSON = "sessions.jsonl"
	SummaryFile  = "eval_summary.json"
)

// Report is a finished run: the transcripts, the scoring cases made of
// them, and their verdicts when an eval config was given.
type Report struct {
	Transcripts []*Transcript
	Cases       []scoring.Case
	Config      *scoring.Config
	// Scores are the verdicts by case, nil when nothing was scored.
	Scores *scoring.Result
	Wall   time.Duration
}

// NewReport makes the scoring cases of ts; Score fills in the verdicts.
func NewReport(ts []*Transcript, cfg *scoring.Config) *Report {
	if cfg == nil {
		cfg = scoring.DefaultConfig()
	}
	r := &Report{Transcripts: ts, Config: cfg}
	for _, t := range ts {
		c := scoring.Case{ID: t.Case.ID, Actual: t.scoringInvocations(), EvalSetID: EvalSetID, Failure: t.Failure}
		if t.Case.Scenario != nil {
			c.Scenario, _ = json.Marshal(scenarioJSON(t.Case))
		}
		r.Cases = append(r.Cases, c)
	}
	return r
}

// scenarioJSON is the scenario as its eval case holds it.
func scenarioJSON(c *Case) any {
	s := map[string]any{"starting_prompt": c.Scenario.StartingPrompt, "conversation_plan": c.Scenario.ConversationPlan}
	if c.Scenario.Persona != nil {
		s["user_persona"] = c.Scenario.Persona
	}
	return s
}

// Write writes every output into dir, creating it.
func (r *Report) Write(dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, SessionsDir), 0o755); err != nil {
		return err
	}
	for _, t := range r.Transcripts {
		if t.Session == nil {
			continue
		}
		var b bytes.Buffer
		if err := json.Indent(&b, t.Session.Raw, "", "  "); err != nil {
			b.Reset()
			b.Write(t.Session.Raw)
		}
		b.WriteByte('\n')
		name, err := cassettes.FileName(t.Case.ID)
		if err != nil {
			return fmt.Errorf("case %q: %w", t.Case.ID, err)
		}
		name = name[:len(name)-len(filepath.Ext(name))] + ".json"
		if err := writeFile(filepath.Join(dir, SessionsDir, name), b.Bytes()); err != nil {
			return err
		}
	}
	files := []struct {
		name string
		make func() ([]byte, error)
	}{
		{EvalSetFile, r.evalSet},
		{QALogFile, r.qaLog},
		{SessionsCSV, r.sessionsCSV},
		{SessionsJSON, r.sessionsJSONL},
		{SummaryFile, r.summary},
	}
	for _, f := range files {
		b, err := f.make()
		if err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
		if err := writeFile(filepath.Join(dir, f.name), b); err != nil {
			return err
		}
	}
	return nil
}

func writeFile(path string, b []byte) error {
	if err := cassettes.WriteFileAtomic(path, b); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

func (r *Report) evalSet() ([]byte, error) {
	doc := outEvalSet{EvalSetID: EvalSetID, Name: EvalSetID, EvalCases: []outEvalCase{}}
	for _, t := range r.Transcripts {
		doc.EvalCases = append(doc.EvalCases, t.evalCase())
	}
	return textfmt.IndentedJSON(doc)
}

// row is one session's line in sessions.csv and sessions.jsonl.
type row struct {
	t      *Transcript
	run    scoring.SessionRun
	scores []*float64 // by r.metrics()
}

// metrics are the scored metrics, in the config's order.
func (r *Report) metrics() []string {
	if r.Scores == nil || len(r.Scores.Cases) == 0 {
		return nil
	}
	var out []string
	for _, m := range r.Scores.Cases[0].Metrics {
		out = append(out, m.Metric)
	}
	return out
}

func (r *Report) rows() []row {
	metrics := r.metrics()
	out := make([]row, len(r.Transcripts))
	for i, t := range r.Transcripts {
		out[i] = row{t: t, run: scoring.RunOf(r.Config, &r.Cases[i])}
		if r.Scores != nil {
			for _, name := range metrics {
				var s *float64
				for _, m := range r.Scores.Cases[i].Metrics {
					if m.Metric == name {
						s = m.Score
					}
				}
				out[i].scores = append(out[i].scores, s)
			}
		}
	}
	return out
}

// columns are the table's columns: see docs/scenarios.md.
func (r *Report) columns() []string {
	cols := []string{"eval_id", "session_id", "agent_name"}
	for _, m := range r.metrics() {
		cols = append(cols, "score."+m)
	}
	return append(cols, "metric.duration_sec", "metric.total_tokens", "metric.cache_hit_rate", "metric.turn_count",
		"metric.tool_calls", "metric.tool_errors", "metric.unique_tools", "final_response", "stop_status")
}

// values are a row's cells, nil for none.
func (w row) values() []any {
	v := []any{w.t.Case.ID, w.t.SessionID, w.t.AgentName}
	for _, s := range w.scores {
		v = append(v, s)
	}
	return append(v, round(w.run.Duration.Seconds(), 3), w.run.TotalTokens, w.run.CacheHitRate, w.run.TurnCount,
		w.run.ToolCalls, w.run.ToolErrors, w.run.UniqueTools, w.t.finalResponse(), string(w.t.Status))
}

func round(f float64, decimals int) float64 {
	s := strconv.FormatFloat(f, 'f', decimals, 64)
	r, _ := strconv.ParseFloat(s, 64)
	return r
}

// finalResponse is the agent's last final response.
func (t *Transcript) finalResponse() string {
	invs := t.invocations()
	for i := len(invs) - 1; i >= 0; i-- {
		if invs[i].final != nil {
			return text(invs[i].final.Content)
		}
	}
	return ""
}

func (r *Report) sessionsCSV() ([]byte, error) {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	if err := w.Write(r.columns()); err != nil {
		return nil, err
	}
	for _, row := range r.rows() {
		var cells []string
		for _, v := range row.values() {
			cells = append(cells, cell(v))
		}
		if err := w.Write(cells); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return b.Bytes(), w.Error()
}

func cell(v any) string {
	switch x := v.(type) {
	case *float64:
		if x == nil {
			return ""
		}
		return strconv.FormatFloat(*x, 'f', -1, 64)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	default:
		return fmt.Sprint(x)
	}
}

func (r *Report) sessionsJSONL() ([]byte, error) {
	var b bytes.Buffer
	cols := r.columns()
	for _, row := range r.rows() {
		b.WriteByte('{')
		for i, v := range row.values() {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(cols[i])
			val, err := json.Marshal(v)
			if err != nil {
				return nil, err
			}
			b.Write(k)
			b.WriteByte(':')
			b.Write(val)
		}
		b.WriteString("}\n")
	}
	return b.Bytes(), nil
}
