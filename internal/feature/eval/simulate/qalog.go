// question_answer_log.md: each conversation as a person reads it — user
// turns, tool calls with their arguments and results, the agent's
// answers, why it stopped, divergences, and the verdicts when scored.

package simulate

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/adkproxy/adkproxy/matcher"
)

func (r *Report) qaLog() ([]byte, error) {
	var b strings.Builder
	b.WriteString("# Simulated conversations\n")
	for i, t := range r.Transcripts {
		fmt.Fprintf(&b, "\n## %s\n\n", t.Case.Key())
		if s := t.Case.Scenario; s != nil {
			fmt.Fprintf(&b, "- plan: %s\n", oneLine(s.ConversationPlan))
			if s.Persona != nil {
				fmt.Fprintf(&b, "- persona: %s\n", s.Persona.ID)
			}
		} else {
			b.WriteString("- static conversation\n")
		}
		fmt.Fprintf(&b, "- session: %s\n", t.SessionID)
		fmt.Fprintf(&b, "- stopped: %s", t.Status)
		if t.Failure != "" {
			fmt.Fprintf(&b, " — %s", oneLine(t.Failure))
		}
		b.WriteString("\n")
		for _, d := range t.Divergences {
			fmt.Fprintf(&b, "- diverged at turn %d:%s\n", d.Turn, indentLines(matcher.FormatDiffs(d.Diffs, 12)))
		}
		for n, turn := range t.Turns {
			fmt.Fprintf(&b, "\n### Turn %d\n\n**User:** %s\n", n+1, text(turn.User))
			for _, ev := range turn.Events {
				if ev.Author == "user" || ev.Partial || ev.Content == nil {
					continue
				}
				for _, p := range ev.Content.Parts {
					switch {
					case p == nil || p.Thought:
					case p.FunctionCall != nil:
						if name, args, ok := confirmationAsk(p.FunctionCall); ok {
							fmt.Fprintf(&b, "\n- %s asks to confirm `%s` with %s\n", ev.Author, name, compact(args))
							continue
						}
						fmt.Fprintf(&b, "\n- %s called `%s` with %s\n", ev.Author, p.FunctionCall.Name, compact(p.FunctionCall.Args))
					case p.FunctionResponse != nil:
						fmt.Fprintf(&b, "\n- `%s` returned %s\n", p.FunctionResponse.Name, compact(p.FunctionResponse.Response))
					case p.Text != "":
						fmt.Fprintf(&b, "\n**%s:** %s\n", ev.Author, p.Text)
					}
				}
			}
		}
		if r.Scores != nil && i < len(r.Scores.Cases) {
			b.WriteString("\n### Verdicts\n\n| metric | score | status | reason |\n|---|---|---|---|\n")
			for _, m := range r.Scores.Cases[i].Metrics {
				score := "-"
				if m.Score != nil {
					score = strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.4f", *m.Score), "0"), ".")
				}
				fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", m.Metric, score, m.Status, strings.ReplaceAll(oneLine(m.Reason), "|", `\|`))
			}
		}
	}
	return []byte(b.String()), nil
}

func compact(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return "`" + string(b) + "`"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func indentLines(s string) string { return strings.ReplaceAll(s, "\n", "\n  ") }
