package jinja_test

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/adkproxy/adkproxy/internal/base/jinja"
)

// reused is a template using a loop, a macro, a priced method and a
// priced filter, so that every part a rendering could leave state in runs.
const reused = `{% macro line(b) %}[{{ b.name.upper() }}]{% endmacro %}{% for b in bs %}{{ line(b) }}{% endfor %} {{ x|center(width) }} {{ stop_signal }}`

func reusedVars(i int) map[string]any {
	return map[string]any{"bs": []any{map[string]any{"name": fmt.Sprint("a", i)}, map[string]any{"name": "b"}},
		"x": fmt.Sprint(i), "width": 5 + i%3, "stop_signal": "</finished>"}
}

// One parsed template rendered many times, at once and after renderings
// that went over a limit or panicked, gives what a fresh parse gives, and
// each rendering is charged to its own budget.
func TestExecuteReusesParsedTemplate(t *testing.T) {
	tmpl, err := jinja.Parse(reused)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]string, 16)
	for i := range want {
		if want[i], err = jinja.Render(reused, reusedVars(i)); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for r := range 20 {
				i := (w*20 + r) % len(want)
				vars := reusedVars(i)
				if r%5 == 4 {
					// A width over the output limit: an error, and the next rendering is unaffected.
					vars["width"] = jinja.MaxOutput + 1
					if _, err := jinja.Execute(tmpl, vars); !errors.Is(err, jinja.ErrLimit) {
						t.Errorf("width over the limit: %v, want ErrLimit", err)
					}
					continue
				}
				if got, err := jinja.Execute(tmpl, vars); err != nil || got != want[i] {
					t.Errorf("rendering %d: %q, %v; want %q", i, got, err, want[i])
				}
			}
		})
	}
	wg.Wait()

	// A budget spent by one rendering is not charged to the next: each
	// builds 600 KiB with a priced method, more than MaxBuilt (8 MiB) over twenty renderings.
	big, err := jinja.Parse(`{{ "x".ljust(n, " ")|length }}`)
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		if got, err := jinja.Execute(big, map[string]any{"n": 600 << 10}); err != nil || got != fmt.Sprint(600<<10) {
			t.Fatalf("a rendering within its budget: %q, %v", got, err)
		}
	}

	panics, err := jinja.Parse(`{% if boom %}{{ "a" * -1 }}{% endif %}{{ line }}`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := jinja.Execute(panics, map[string]any{"boom": true}); err == nil || !strings.Contains(err.Error(), "the template failed") {
		t.Fatalf("a panicking rendering: %v", err)
	}
	if got, err := jinja.Execute(panics, map[string]any{"boom": false, "line": "ok"}); err != nil || got != "ok" {
		t.Errorf("after a panic: %q, %v", got, err)
	}
}

// Rendering a parsed template does not parse it again: the simulated user
// renders its prompt every turn, and a parse (lexing, the priced method
// sets) costs many times a rendering of a prompt.
func TestExecuteDoesNotReparse(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts differ under the race detector")
	}
	// A prompt's shape: a page of instructions around a few variables.
	src := strings.Repeat("Write the user's next message. Use only the plan.\n", 40) +
		"{{ stop_signal }}\n# Plan\n{{ conversation_plan }}\n# History\n{{ conversation_history }}"
	vars := map[string]any{"stop_signal": "</finished>", "conversation_plan": "Ask for Rome.", "conversation_history": "user: hi\n\nagent: hello"}
	tmpl, err := jinja.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	parse := testing.AllocsPerRun(20, func() {
		if _, err := jinja.Parse(src); err != nil {
			t.Fatal(err)
		}
	})
	execute := testing.AllocsPerRun(20, func() {
		if _, err := jinja.Execute(tmpl, vars); err != nil {
			t.Fatal(err)
		}
	})
	// Before, each rendering parsed the template afresh: more than a parse.
	if execute > parse/4 {
		t.Errorf("a rendering allocates %.0f times, a parse %.0f: the rendering parses again", execute, parse)
	}
}

// The texts render_string_filter renders (a persona's behaviors, every
// turn) are parsed once per parsed template, and rendered with each
// rendering's own variables.
func TestRenderStringFilterParsesATextOnce(t *testing.T) {
	src := `{% for b in bs %}[{{ b | render_string_filter }}]{% endfor %}`
	texts := []any{"Stop with {{ stop_signal }}.", "{% if stop_signal %}Then {{ stop_signal|upper }}{% endif %}", "plain", "{{ stop_signal ~ stop_signal }}"}
	tmpl, err := jinja.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, stop := range []string{"</a>", "</b>", ""} {
		vars := map[string]any{"bs": texts, "stop_signal": stop}
		want, err := jinja.Render(src, vars)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := jinja.Execute(tmpl, vars); err != nil || got != want {
			t.Errorf("stop_signal %q: %q, %v; want %q", stop, got, err, want)
		}
	}
	if raceEnabled {
		return // allocation counts differ under the race detector
	}
	vars := map[string]any{"bs": texts, "stop_signal": "</a>"}
	fresh, err := jinja.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := jinja.Execute(fresh, vars); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	first := float64(after.Mallocs - before.Mallocs)
	again := testing.AllocsPerRun(20, func() {
		if _, err := jinja.Execute(fresh, vars); err != nil {
			t.Fatal(err)
		}
	})
	if again > first/2 {
		t.Errorf("a rendering allocates %.0f times, the first %.0f: the texts are parsed again", again, first)
	}
}
