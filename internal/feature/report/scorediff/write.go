// The report as text, Markdown and JSON.

package scorediff

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/adkproxy/adkproxy/internal/base/textfmt"
)

// rows are the report's table: a header and a line per criterion, then
// the cases line.
func (r *Report) rows() [][]string {
	o, n := r.Old.Label, r.New.Label
	out := [][]string{{"CRITERION", "MEAN " + o, "MEAN " + n, "Δ MEAN", "PASS " + o, "PASS " + n, "Δ PASS"}}
	for _, c := range r.Criteria {
		out = append(out, []string{c.Name, mean(c.Old), mean(c.New), signed(c.Change.Mean),
			passRate(c.Old, c.Informational), passRate(c.New, c.Informational), points(c.Change.PassRate)})
	}
	return append(out, []string{"(cases)", "", "", "", passRate(r.Cases.Old, false), passRate(r.Cases.New, false), points(r.Cases.PassRate)})
}

// WriteText writes the table with aligned columns, after a line naming
// both runs.
func WriteText(w io.Writer, r *Report) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "score results: %s (%s) → %s (%s)\n", textfmt.OneLine(r.Old.Label), r.Old.Path,
		textfmt.OneLine(r.New.Label), r.New.Path)
	rows := r.rows()
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, cell := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	for _, row := range rows {
		var line strings.Builder
		for i, cell := range row {
			line.WriteString(cell)
			if i < len(row)-1 {
				line.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell)+2))
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
	_, err := w.Write(b.Bytes())
	return err
}

// WriteMarkdown writes the table as GitHub-flavoured Markdown.
func WriteMarkdown(w io.Writer, r *Report) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "## adkproxy score: %s → %s\n\n", textfmt.MarkdownText(r.Old.Label), textfmt.MarkdownText(r.New.Label))
	for i, row := range r.rows() {
		for j := range row {
			row[j] = mdCell(row[j])
		}
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
		if i == 0 {
			b.WriteString("|" + strings.Repeat(" --- |", len(row)) + "\n")
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// WriteJSON writes the report: each run's label and path, then per
// criterion both runs' figures and the change.
func WriteJSON(w io.Writer, r *Report) error {
	type side struct {
		Label string `json:"label"`
		Path  string `json:"path"`
	}
	doc := struct {
		Old      side        `json:"old"`
		New      side        `json:"new"`
		Criteria []Criterion `json:"criteria"`
		Cases    Change      `json:"cases"`
	}{side{r.Old.Label, r.Old.Path}, side{r.New.Label, r.New.Path}, r.Criteria, r.Cases}
	if doc.Criteria == nil {
		doc.Criteria = []Criterion{}
	}
	b, err := textfmt.IndentedJSON(doc)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// mdCell keeps a table cell inside its cell: the figures are plain text,
// names may hold "|" or markup characters.
func mdCell(s string) string {
	return strings.NewReplacer("\\", "\\\\", "|", "\\|", "*", "\\*", "_", "\\_", "`", "\\`", "<", "&lt;").Replace(textfmt.OneLine(s))
}

// SummaryLine is the line for stderr.
func SummaryLine(r *Report) string {
	return fmt.Sprintf("adkproxy: diff: %s → %s: %s compared; cases passed %s → %s",
		r.Old.Label, r.New.Label, criteria(len(r.Criteria)),
		passRate(r.Cases.Old, false), passRate(r.Cases.New, false))
}

func criteria(n int) string {
	if n == 1 {
		return "1 criterion"
	}
	return fmt.Sprintf("%d criteria", n)
}

func mean(s *Stats) string {
	if s == nil {
		return "absent"
	}
	if s.Mean == nil {
		return "-"
	}
	return num(*s.Mean)
}

func passRate(s *Stats, info bool) string {
	switch {
	case s == nil:
		return "absent"
	case info || s.PassRate == nil:
		return "-"
	}
	return fmt.Sprintf("%s%% (%d/%d)", num(100**s.PassRate), s.Passed, s.Cases)
}

func signed(f *float64) string {
	if f == nil {
		return "-"
	}
	if *f > 0 {
		return "+" + num(*f)
	}
	return num(*f)
}

func points(f *float64) string {
	if f == nil {
		return "-"
	}
	return signed(float(100**f)) + " pp"
}

// num is f with 4 decimals, or 4 significant digits below 1 (costs),
// trailing zeros dropped.
func num(f float64) string {
	if f == 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	decimals := 4
	if a := math.Abs(f); a < 1 {
		decimals = min(12, max(4, 3-int(math.Floor(math.Log10(a)))))
	}
	s := strconv.FormatFloat(f, 'f', decimals, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}
