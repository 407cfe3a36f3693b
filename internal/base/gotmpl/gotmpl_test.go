package gotmpl

import (
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Hostile templates end in an error naming the bound and the line, having
// built little; ordinary ones render as text/template renders them.
func TestHostileTemplatesAreBounded(t *testing.T) {
	limits := Limits{Time: time.Second, Output: 256 << 10, Built: 2 << 20}
	for _, tc := range []struct{ name, src, want string }{
		{"output", "a\n{{range 100000000}}" + strings.Repeat("x", 64) + "{{end}}", "line 2: the output would be more than"},
		{"time", "\n\n{{range 100000000}}{{range 100000000}}{{end}}{{end}}", "line 3: rendering took more than 1s"},
		{"recursion", `{{define "a"}}{{template "b"}}{{template "b"}}{{end}}{{define "b"}}{{template "c"}}{{template "c"}}{{end}}` +
			`{{define "c"}}{{range 1000000000}}{{end}}{{end}}{{template "a"}}`, "rendering took more than"},
		{"doubling", "{{$x := \"xxxxxxxx\"}}\n{{range 100}}{{$x = printf \"%s%s\" $x $x}}{{end}}", "line 2: printf"},
		{"width", `{{printf "%999999d%999999d%999999d%999999d%999999d" 1 2 3 4 5}}`, "line 1: printf would build"},
		{"star", `{{printf "%*d" 100000000 1}}`, "line 1: printf: a width or precision from an argument"},
		{"escaper", "{{$x := \"<<<<<<<<\"}}{{range 100}}{{$x = html $x $x}}{{end}}", "html"},
		{"print", "{{$x := \"ab\"}}{{range 100}}{{$x = print $x $x}}{{end}}", "print"},
	} {
		tmpl, err := Parse(tc.name, tc.src)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		out, err := Execute(tmpl, "", nil, limits)
		runtime.ReadMemStats(&after)
		if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %d bytes, error %v; want one saying %q", tc.name, len(out), err, tc.want)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 200<<20 {
			t.Errorf("%s: allocated %d MB", tc.name, got>>20)
		}
	}
	if _, err := Parse("big", strings.Repeat("x", MaxSource+1)); !errors.Is(err, ErrLimit) {
		t.Errorf("a source over MaxSource: %v", err)
	}
}

func TestOrdinaryTemplatesRender(t *testing.T) {
	tmpl, err := Parse("p", `{{define "main"}}Q: {{.Q}}{{range $i, $c := .Calls}}
{{$i}} {{printf "%q" $c}}{{end}}{{if .Missing}}no{{else}} {{len .Calls}} {{html "<b>"}}{{end}}{{end}}`, "missingkey=error")
	if err != nil {
		t.Fatal(err)
	}
	data := map[string]any{"Q": "weather?", "Calls": []string{"a", "b"}, "Missing": false}
	out, err := Execute(tmpl, "main", data, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "Q: weather?\n0 \"a\"\n1 \"b\" 2 &lt;b&gt;"; out != want {
		t.Errorf("got %q, want %q", out, want)
	}
	if _, err := Execute(tmpl, "main", map[string]any{}, Limits{}); err == nil || errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "map has no entry for key") {
		t.Errorf("missingkey=error: %v", err)
	}
	if err := tmpl.ExecuteTemplate(new(strings.Builder), "main", data); err == nil {
		t.Error("a bounded template ran outside Execute")
	}
}

// Whatever parses renders or fails within the bounds, never panics.
func FuzzExecute(f *testing.F) {
	for _, s := range []string{"{{range 10}}x{{end}}", `{{define "a"}}{{template "a"}}{{end}}{{template "a"}}`,
		`{{printf "%5d" 1}}`, "{{.}}", "{{range $i, $x := .}}{{break}}{{end}}", "{{with 1}}{{else}}{{end}}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		tmpl, err := Parse("f", src)
		if err != nil {
			return
		}
		out, _ := Execute(tmpl, "", []int{1, 2}, Limits{Time: 50 * time.Millisecond, Output: 1 << 16, Built: 1 << 18})
		if len(out) > 1<<16 {
			t.Fatalf("%d bytes out", len(out))
		}
	})
}
