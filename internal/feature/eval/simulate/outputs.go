// The outputs of a run in --out DIR, each written atomically:
// sessions/<case>.json, simulated.evalset.json, question_answer_log.md,
// sessions.csv, sessions.jsonl and eval_summary.json.

package simulate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/textfmt"
	"github.com/adkproxy/adkproxy/internal/data/evalset"
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
		in := t.Case.Input
		c.SessionInput, _ = json.Marshal(map[string]any{"app_name": in.AppName, "user_id": in.UserID, "state": in.State})
		if t.Session != nil && t.Session.State != nil {
			c.FinalState, _ = json.Marshal(t.Session.State)
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
		name, err := cassettes.FileName(t.Case.Key())
		if err != nil {
			return fmt.Errorf("case %q: %w", t.Case.Key(), err)
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
	doc := evalset.EvalSet{EvalSetID: EvalSetID, Name: EvalSetID, EvalCases: []evalset.EvalCase{}}
	for _, t := range r.Transcripts {
		if t.Case.Run > 1 || t.Case.Sample > 1 {
			continue // the eval set has each case once: its first run
		}
		doc.EvalCases = append(doc.EvalCases, t.evalCase())
	}
	return textfmt.IndentedJSON(doc)
}

// rows are sessions.csv and sessions.jsonl: scoring's table (the same
// columns as score --format csv), with agent_name and stop_status.
func (r *Report) rows() *scoring.Rows {
	rows := &scoring.Rows{Criteria: r.metrics(), Config: r.Config}
	for i, t := range r.Transcripts {
		row := scoring.Row{EvalSetID: EvalSetID, EvalID: t.Case.ID, SessionID: t.SessionID, Case: &r.Cases[i],
			Extra: []scoring.Cell{{Column: "agent_name", Value: t.AgentName}, {Column: "stop_status", Value: string(t.Status)}}}
		if r.Scores != nil {
			row.Result = &r.Scores.Cases[i]
		}
		rows.Rows = append(rows.Rows, row)
	}
	return rows
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

func round(f float64, decimals int) float64 {
	s := strconv.FormatFloat(f, 'f', decimals, 64)
	r, _ := strconv.ParseFloat(s, 64)
	return r
}

func (r *Report) sessionsCSV() ([]byte, error) {
	var b bytes.Buffer
	err := r.rows().WriteCSV(&b)
	return b.Bytes(), err
}

func (r *Report) sessionsJSONL() ([]byte, error) {
	var b bytes.Buffer
	err := r.rows().WriteJSONL(&b)
	return b.Bytes(), err
}
