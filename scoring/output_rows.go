// The csv and jsonl output formats: one row per case under one column
// contract, shared with adkproxy simulate's sessions.csv and sessions.jsonl.

package scoring

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Rows is a scoring run as a table, one row per case, for DuckDB,
// BigQuery or a spreadsheet. Its columns, in order (the contract,
// documented in docs/scoring.md "Results as a table"):
//
//	label                    Label (only when HasLabel)
//	eval_set_id, eval_id     the case's eval set and id
//	session_id               the recorded session (Row.SessionID)
//	status                   the case's status (PASSED, FAILED,
//	                         NOT_EVALUATED), empty when not scored
//	<criterion>              per criterion, in config order: its score
//	<criterion>.status       and status (INFORMATIONAL for a metric
//	                         without a threshold)
//	metric.*                 the run metrics of RunColumns, always
//	final_response           the agent's last final response
//	then the Row's Extra cells, whose columns come from the first row.
//
// WriteCSV and WriteJSONL are the only writers of these rows: score's
// csv and jsonl formats and simulate's sessions files both use them.
type Rows struct {
	// HasLabel adds the label column (score's rows always have it).
	HasLabel bool
	Label    string
	// Criteria are the criterion columns, in order.
	Criteria []string
	Config   *Config
	Rows     []Row
}

// Row is one case.
type Row struct {
	EvalSetID, EvalID, SessionID string
	// Case gives the run metrics and final response (its Actual).
	Case *Case
	// Result gives the status and criterion columns; nil when not scored.
	Result *CaseResult
	// Extra are the caller's own columns, after the contract's.
	Extra []Cell
}

// Cell is a named value: nil, a string, a number, a *float64 (nil is
// empty), or a []string (a list: "a;b" in CSV, an array in JSON).
type Cell struct {
	Column string
	Value  any
}

// RowsOf is r as score's rows: label first (empty without one), criteria
// in the order of the first case's metrics (the config's).
func RowsOf(r *Result, cfg *Config) *Rows {
	rows := &Rows{HasLabel: true, Label: r.Label, Config: cfg}
	if len(r.Cases) > 0 {
		for _, m := range r.Cases[0].Metrics {
			rows.Criteria = append(rows.Criteria, m.Metric)
		}
	}
	sampled := suiteSamplesOf(r) != nil
	for i := range r.Cases {
		c := &r.Cases[i]
		row := Row{EvalSetID: outEvalSetID(r, *c), EvalID: outCaseID(*c), SessionID: outSessionID(*c), Case: c.Case, Result: c}
		if sampled {
			row.Extra = samplesCells(c)
		}
		rows.Rows = append(rows.Rows, row)
	}
	return rows
}

// Columns are the header.
func (t *Rows) Columns() []string {
	var cols []string
	if t.HasLabel {
		cols = append(cols, "label")
	}
	cols = append(cols, "eval_set_id", "eval_id", "session_id", "status")
	for _, m := range t.Criteria {
		cols = append(cols, m, m+".status")
	}
	cols = append(cols, RunColumns()...)
	cols = append(cols, "final_response")
	if len(t.Rows) > 0 {
		for _, e := range t.Rows[0].Extra {
			cols = append(cols, e.Column)
		}
	}
	return cols
}

// Values are row i's cells in Columns order.
func (t *Rows) Values(i int) []any { return t.values(&t.Rows[i]) }

func (t *Rows) values(r *Row) []any {
	var v []any
	if t.HasLabel {
		v = append(v, t.Label)
	}
	status := ""
	if r.Result != nil {
		status = outKnown(r.Result.Status).String()
	}
	v = append(v, r.EvalSetID, r.EvalID, r.SessionID, status)
	for _, name := range t.Criteria {
		var score *float64
		st := ""
		if r.Result != nil {
			for _, m := range r.Result.Metrics {
				if m.Metric == name {
					score, st = outFinite(m.Score), rowStatus(m)
				}
			}
		}
		v = append(v, score, st)
	}
	var c Case
	if r.Case != nil {
		c = *r.Case
	}
	v = append(v, runOf(t.Config, &c).cells()...)
	final := ""
	for i := len(c.Actual) - 1; i >= 0 && final == ""; i-- {
		final = c.Actual[i].FinalResponse
	}
	v = append(v, final)
	for _, e := range r.Extra {
		v = append(v, e.Value)
	}
	return v
}

// rowStatus is ADK's status name, INFORMATIONAL for a metric without a
// threshold.
func rowStatus(m MetricResult) string {
	if m.Informational {
		return "INFORMATIONAL"
	}
	return outKnown(m.Status).String()
}

// WriteCSV writes the header and a line per row (RFC 4180; numbers as
// the shortest exact decimal, no score as an empty cell, a list as its
// items joined by ";"). A text cell a spreadsheet would take for a formula
// is written with a leading quote (see neutralise).
func (t *Rows) WriteCSV(w io.Writer) error {
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	head := t.Columns()
	for i := range head {
		head[i] = neutralise(head[i])
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	for i := range t.Rows {
		var cells []string
		for _, v := range t.values(&t.Rows[i]) {
			cells = append(cells, csvCell(v))
		}
		if err := cw.Write(cells); err != nil {
			return err
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

func csvCell(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case *float64:
		if x == nil {
			return ""
		}
		return csvFloat(*x)
	case float64:
		return csvFloat(x)
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case []string:
		return neutralise(strings.Join(x, ";"))
	default:
		return neutralise(fmt.Sprint(x))
	}
}

// neutralise defuses CSV formula injection as OWASP recommends: text from
// a recording or an eval set (an eval_id, a final answer) that starts
// with = + - @ TAB or CR would be evaluated by a spreadsheet, so it gets a
// leading single quote, which spreadsheets show as text. Numbers adkproxy
// computes are never text cells, so a negative number stays a number.
func neutralise(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

func csvFloat(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return ""
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// WriteJSONL writes one JSON object per row, keys in column order, no
// score as null, a list as an array.
func (t *Rows) WriteJSONL(w io.Writer) error {
	var b bytes.Buffer
	cols := t.Columns()
	for i := range t.Rows {
		b.WriteByte('{')
		for j, v := range t.values(&t.Rows[i]) {
			if j > 0 {
				b.WriteByte(',')
			}
			if f, ok := v.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
				v = nil
			}
			if l, ok := v.([]string); ok && l == nil {
				v = []string{}
			}
			k, _ := json.Marshal(cols[j])
			val, err := jsonNoHTML(v)
			if err != nil {
				return fmt.Errorf("column %s: %w", cols[j], err)
			}
			b.Write(k)
			b.WriteByte(':')
			b.Write(val)
		}
		b.WriteString("}\n")
	}
	_, err := w.Write(b.Bytes())
	return err
}

func jsonNoHTML(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// RunColumns are the run metric columns of Rows, in order: SessionRun's
// fields, each computed by the run metric of the same name.
func RunColumns() []string {
	return []string{"metric.duration_sec", "metric.total_tokens", "metric.cache_hit_rate", "metric.turn_count",
		"metric.tool_calls", "metric.tool_errors", "metric.unique_tools", "metric.tool_success_rate",
		"metric.reasoning_ratio", "metric.grounding_utilization", "metric.sandbox_usage", "metric.tool_latency_ms",
		"metric.agent_handoffs"}
}

// cells are s in RunColumns order.
func (s SessionRun) cells() []any {
	secs, _ := strconv.ParseFloat(strconv.FormatFloat(s.Duration.Seconds(), 'f', 3, 64), 64)
	return []any{secs, s.TotalTokens, s.CacheHitRate, s.TurnCount, s.ToolCalls, s.ToolErrors, s.UniqueTools,
		s.ToolSuccessRate, s.ReasoningRatio, s.GroundingCited, s.SandboxCalls, s.ToolLatencyMS, s.AgentHandoffs}
}
