package jinja_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/base/jinja"
)

func TestRender(t *testing.T) {
	got, err := jinja.Render("{% for b in bs %}[{{ b.name }}]{% endfor %} {{ stop_signal }}", map[string]any{
		"bs": []any{map[string]any{"name": "a"}, map[string]any{"name": "b"}}, "stop_signal": "</finished>"})
	if err != nil || got != "[a][b] </finished>" {
		t.Errorf("Render = %q, %v", got, err)
	}
	// The second and third made gonja's lexer panic, and loop taking all memory.
	for _, bad := range []string{"{% for %}", "{{0.\u0841", "{{0.\xe00.\u0861\x81", "x\n{% if 1.5.\u00e9 %}"} {
		if _, err := jinja.Render(bad, nil); err == nil || !strings.Contains(err.Error(), "not a valid Jinja template") {
			t.Errorf("a bad template %q: %v", bad, err)
		}
	}
	// Outside tags, and with a space after the dot, the same text is fine.
	if got, err := jinja.Render("Step 1.\u00dcbung {{ 1. }}{{ \"2.\u00e9\"|length }}", nil); err != nil || got != "Step 1.\u00dcbung 1.03" {
		t.Errorf("text with a number, a dot and a non-ASCII letter: %q, %v", got, err)
	}
}

// A template cannot read a file: include and import fail.
func TestRenderLoadsNoFile(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(secret, []byte("TOP-SECRET"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{`{% include "` + secret + `" %}`, `{% import "` + secret + `" as s %}x`} {
		out, err := jinja.Render(src, nil)
		if err == nil || strings.Contains(out, "TOP-SECRET") {
			t.Errorf("%s rendered %q, %v; want an error", src, out, err)
		}
	}
}
