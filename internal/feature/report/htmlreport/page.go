// The page: one template with the styles, the timeline of steps shared by
// every view.

package htmlreport

import (
	"embed"
	"html/template"
	"io"
	"strconv"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/adkapi"
	"github.com/adkproxy/adkproxy/internal/base/textfmt"
	"github.com/adkproxy/adkproxy/internal/data/recorded"
	"github.com/adkproxy/adkproxy/internal/feature/report/runview"
)

//go:embed page.html.tmpl
var files embed.FS

var page = template.Must(template.New("page.html.tmpl").Funcs(template.FuncMap{
	"json": func(v any) string { return textfmt.JSON(v) },
}).ParseFS(files, "page.html.tmpl"))

// Page is what the template renders.
type Page struct {
	Title   string
	Summary []string // lines on top
	Counts  []Count
	Cost    []CostRow
	Blocks  []Block
}

// Count is one kind of change and how many there are.
type Count struct {
	Kind string
	N    int
	Text string // N and the kind in words: "1 declaration changed"
}

// CostRow is one figure, old and new.
type CostRow struct{ Name, Old, New, Change string }

// Block is a cassette and session heading with its invocations.
type Block struct {
	Title, Status string
	Changes       []Change
	Invocations   []Invocation
}

// Invocation is one user turn: its changes, and one timeline per side (one
// for a single run).
type Invocation struct {
	Title, Status string
	Open          bool
	Changes       []Change
	Cost          string
	Sides         []Side
}

// Change is one highlighted difference, or one verdict of a score; Class
// styles it (a score's passed, failed or not_evaluated).
type Change struct {
	Kind, Class, Text string
	Label             string // the kind in words
	Words             template.HTML
}

// Side is one run's timeline of an invocation.
type Side struct {
	Label string
	User  string
	Steps []Step
	Empty string // said when the side has no such invocation
}

// Step is one model call: what the agent received, and what it answered.
type Step struct {
	Agent, Model, Note string
	Results            []Item
	Calls              []Item
	HTTP               []Item // requests the tools made
	Text               string
	Final              bool
}

// Item is a tool call or result; Status is same, added, removed,
// args_changed or moved (a class of the page's style).
type Item struct {
	Text, Status string
}

func write(w io.Writer, p *Page) error { return page.Execute(w, p) }

// timeline is an invocation's steps as a side; status gives each tool call
// (numbered from 0 in file order) its status.
func timeline(label string, inv *recorded.Invocation, status func(call int) string) Side {
	side := Side{Label: label, User: inv.User}
	call := 0
	final := inv.FinalStep()
	for i, st := range inv.Steps {
		s := Step{Agent: st.Agent, Model: st.Model, Text: st.Text, Final: i == final}
		if st.Status != 200 {
			s.Note = strings.TrimSpace("HTTP " + strconv.Itoa(st.Status) + " " + st.ErrorStatus)
		}
		for _, r := range st.ToolResults {
			text := r.Name + " → " + textfmt.JSON(nonNil(r.Response))
			if adkapi.IsRefusal(r.Name, r.Response) {
				text = r.Name + " (refused at confirmation) → " + textfmt.JSON(r.Response)
			}
			s.Results = append(s.Results, Item{Text: text, Status: "same"})
		}
		for j, tc := range st.ToolCalls {
			text := textfmt.Call(tc.Name, tc.Args, 80)
			if answer, ok := inv.ConfirmationOf(i, j); ok {
				text = "confirm " + text + "? → " + answer.Decision() + runview.PayloadNote(answer.Payload)
			}
			s.Calls = append(s.Calls, Item{Text: text, Status: status(call)})
			call++
		}
		for _, h := range st.HTTPCalls { // numbered after the step's calls, as rundiff numbers them
			s.HTTP = append(s.HTTP, Item{Text: h.Kind() + " " + h.String(), Status: status(call)})
			call++
		}
		side.Steps = append(side.Steps, s)
	}
	return side
}

func nonNil(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}
