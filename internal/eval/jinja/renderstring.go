// ADK's render_string_filter: a text rendered as a template with the
// variables of the template it appears in (ADK's simulator judge prompts
// render persona behavior texts so, which may say {{ stop_signal }}).

package jinja

import (
	"runtime"
	"strings"

	"github.com/nikolalohinski/gonja/v2/exec"
)

func init() {
	_ = pricedFilters.Register("render_string_filter", renderString)
}

// renderString renders its input, a template text, in a scope of the
// current one: "" for an empty or missing text, as in ADK.
func renderString(e *exec.Evaluator, in *exec.Value, _ *exec.VarArgs) *exec.Value {
	if in.IsError() {
		return in
	}
	if in.IsNil() || in.String() == "" {
		return exec.AsValue("")
	}
	g := guardOf(e.Environment.Context)
	var pcs [maxStackFrames]uintptr
	if g != nil && runtime.Callers(0, pcs[:]) == len(pcs) {
		return exec.AsValue(g.over("render_string_filter nests too deeply (a text that renders itself?)"))
	}
	env := *e.Environment
	env.Context = e.Environment.Context.Inherit()
	t, err := parse(in.String(), &env)
	if err != nil {
		return exec.AsValue(err)
	}
	var b strings.Builder
	if err := exec.NewRenderer(&env, &b, e.Config, e.Loader, t).Execute(); err != nil {
		return exec.AsValue(err)
	}
	return exec.AsValue(b.String())
}
