package jinja_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/eval/jinja"
)

func TestRender(t *testing.T) {
	got, err := jinja.Render("{% for b in bs %}[{{ b.name }}]{% endfor %} {{ stop_signal }}", map[string]any{
		"bs": []any{map[string]any{"name": "a"}, map[string]any{"name": "b"}}, "stop_signal": "</finished>"})
	if err != nil || got != "[a][b] </finished>" {
		t.Errorf("Render = %q, %v", got, err)
	}
	if _, err := jinja.Render("{% for %}", nil); err == nil || !strings.Contains(err.Error(), "not a valid Jinja template") {
		t.Errorf("a bad template: %v", err)
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
