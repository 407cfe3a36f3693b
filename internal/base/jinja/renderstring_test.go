package jinja_test

import (
	"errors"
	"testing"

	"github.com/adkproxy/adkproxy/internal/base/jinja"
)

// render_string_filter renders a text as a template with the variables of
// the template it is in, "" for a missing or empty text; a text that
// renders itself is a limit error, not a crash.
func TestRenderStringFilter(t *testing.T) {
	got, err := jinja.Render("{% for b in bs %}[{{ b | render_string_filter }}]{% endfor %}({{ missing | render_string_filter }})",
		map[string]any{"stop_signal": "</finished>", "bs": []any{"say {{ stop_signal }}", "", "plain"}})
	if err != nil || got != "[say </finished>][][plain]()" {
		t.Errorf("got %q, %v", got, err)
	}
	_, err = jinja.Render("{{ x | render_string_filter }}", map[string]any{"x": "{{ x | render_string_filter }}"})
	if !errors.Is(err, jinja.ErrLimit) {
		t.Errorf("a text rendering itself: %v, want ErrLimit", err)
	}
}
