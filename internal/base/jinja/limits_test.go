package jinja_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/base/jinja"
)

// TestRenderLimits: templates that would crash the process (a macro that
// calls itself: a Go stack overflow) or take gigabytes or forever (a huge
// range, nested loops, runaway output) end with an error naming the limit.
func TestRenderLimits(t *testing.T) {
	for _, c := range []struct{ what, src, says string }{
		{"a macro calling itself", `{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}`, "nest too deeply"},
		{"a macro handed itself", `{% macro f(h) %}{{ h(h) }}{% endmacro %}{{ f(f) }}`, "nest too deeply"},
		{"a call block calling itself", `{% macro f() %}{% call f() %}{% endcall %}{% endmacro %}{{ f() }}`, "nest too deeply"},
		{"range over the cap", `{% for i in range(1000000000) %}x{% endfor %}`, "more than 100000"},
		{"range with a step over the cap", `{{ range(0, 300000, 2)|length }}`, "more than 100000"},
		{"nested loops that never end in time", `{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}`, "longer than"},
		{"runaway output", `{% for i in range(100000) %}{{ "x" * 1000 }}{% endfor %}`, "output grew past"},
		{"runaway output inside a macro", `{% macro g() %}{% for i in range(12000) %}{{ "y" * 100 }}{% endfor %}{% endmacro %}{{ g()|length }}`, "output grew past"},
		{"a template too long", strings.Repeat("a", jinja.MaxSource+1), "more than"},
	} {
		out, err := jinja.Render(c.src, nil)
		if !errors.Is(err, jinja.ErrLimit) || !strings.Contains(err.Error(), c.says) || len(err.Error()) > 300 {
			t.Errorf("%s: %d bytes, %.400v; want a short error wrapping ErrLimit saying %q", c.what, len(out), err, c.says)
		}
	}
	// Within the limits, range is Jinja's.
	got, err := jinja.Render(`{% for i in range(3) %}{{ i }}{% endfor %}|{{ range(2, 9, 3)|list }}|{{ range(5, 0, -2)|join(",") }}|{{ range(0)|length }}|{{ range(100000)|length }}`, nil)
	if err != nil || got != "012|[2, 5, 8]|5,3,1|0|100000" {
		t.Errorf("range within the cap: %q, %v", got, err)
	}
}

// FuzzRender: whatever the template, rendering ends (within the time
// limit) with output within MaxOutput or an error; it never crashes.
func FuzzRender(f *testing.F) {
	for _, s := range []string{
		`{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}`,
		`{% for i in range(10) %}{{ i * "ab" }}{% endfor %}`,
		`{{ stop_signal }} {% if x %}{{ x|upper }}{% endif %}`,
		`{% for b in bs recursive %}{{ loop(b.c) }}{% endfor %}`,
		`{% set n = namespace(v=1) %}{% for i in range(50) %}{% set n.v = n.v * 2 %}{% endfor %}{{ n.v }}`,
	} {
		f.Add(s)
	}
	for _, c := range hostileTemplates {
		f.Add(c.src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		vars := hostileVars(t)
		vars["stop_signal"], vars["x"], vars["bs"] = "</finished>", "y", []any{map[string]any{"c": []any{}}}
		out, err := jinja.Render(src, vars)
		if err == nil && len(out) > jinja.MaxOutput {
			t.Fatalf("%d bytes of output, over MaxOutput", len(out))
		}
	})
}

// A template that makes gonja panic is an error, not a crash.
func TestRenderPanicIsAnError(t *testing.T) {
	if _, err := jinja.Render(`{{ "a" * -1 }}`, nil); err == nil || !strings.Contains(err.Error(), "the template failed") {
		t.Errorf(`"a" * -1: %v, want an error`, err)
	}
}
