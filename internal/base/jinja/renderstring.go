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

// textsKey is where a rendering's parsed texts sit in its context.
const textsKey = "__adkproxy_render_texts__"

// maxTexts bounds the texts one parsed template keeps parsed.
const maxTexts = 64

// texts are the texts render_string_filter parsed for one parsed copy of a
// template, kept for its next renderings (a persona's behaviors are
// rendered every turn). A copy renders once at a time: no lock.
type texts struct{ parsed map[string]*exec.Template }

func (ts *texts) get(src string) *exec.Template {
	if ts == nil {
		return nil
	}
	return ts.parsed[src]
}

func (ts *texts) put(src string, t *exec.Template) {
	if ts == nil || len(ts.parsed) >= maxTexts {
		return
	}
	if ts.parsed == nil {
		ts.parsed = map[string]*exec.Template{}
	}
	ts.parsed[src] = t
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
	held, _ := e.Environment.Context.Get(textsKey)
	ts, _ := held.(*texts)
	t := ts.get(in.String())
	if t == nil {
		var err error
		if t, err = parse(in.String(), &env); err != nil {
			return exec.AsValue(err)
		}
		ts.put(in.String(), t)
	}
	var b strings.Builder
	if err := exec.NewRenderer(&env, &b, e.Config, e.Loader, t).Execute(); err != nil {
		return exec.AsValue(err)
	}
	return exec.AsValue(b.String())
}
