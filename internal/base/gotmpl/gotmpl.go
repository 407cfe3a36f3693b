// The budget of one rendering: a tick at the start of every loop body and
// every template (the only ways a template repeats), priced builtins, and
// an output that stops growing at its cap.

package gotmpl

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"text/template"
	"text/template/parse"
	"time"
)

// The bounds, each named in the error that reports it.
const (
	// MaxSource bounds a template's text.
	MaxSource = 256 << 10
	// MaxOutput bounds what one rendering writes.
	MaxOutput = 4 << 20
	// MaxBuilt bounds the bytes the template's functions (printf, print,
	// html, js, urlquery…) build in one rendering, kept or not.
	MaxBuilt = 8 * MaxOutput
	// MaxTime bounds one rendering.
	MaxTime = 5 * time.Second
)

// ErrLimit: a template went over one of the bounds above.
var ErrLimit = errors.New("template over a rendering limit")

// tick is the function called at every loop body and template start; its
// argument is the line of the loop or template.
const tick = "adkproxyBudget"

// Parse parses src as a text/template named name (with options such as
// "missingkey=error") whose every execution must go through Execute.
func Parse(name, src string, options ...string) (*template.Template, error) {
	if len(src) > MaxSource {
		return nil, fmt.Errorf("%w: the template is %d bytes, more than %d", ErrLimit, len(src), MaxSource)
	}
	t := template.New(name).Option(options...).Funcs(refusing)
	if _, err := t.Parse(src); err != nil {
		return nil, err
	}
	lineOf := func(pos parse.Pos) int { return 1 + strings.Count(src[:min(int(pos), len(src))], "\n") }
	for _, tt := range t.Templates() {
		if tt.Tree != nil && tt.Root != nil {
			addTicks(tt.Root, lineOf)
			tt.Root.Nodes = append([]parse.Node{tickNode(tt.Root.Pos, lineOf(tt.Root.Pos))}, tt.Root.Nodes...)
		}
	}
	return t, nil
}

// addTicks starts every range body under n with a tick.
func addTicks(n parse.Node, lineOf func(parse.Pos) int) {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, c := range n.Nodes {
			addTicks(c, lineOf)
		}
	case *parse.IfNode:
		addTicks(n.List, lineOf)
		addTicks(n.ElseList, lineOf)
	case *parse.WithNode:
		addTicks(n.List, lineOf)
		addTicks(n.ElseList, lineOf)
	case *parse.RangeNode:
		addTicks(n.List, lineOf)
		addTicks(n.ElseList, lineOf)
		if n.List != nil {
			n.List.Nodes = append([]parse.Node{tickNode(n.Pos, lineOf(n.Pos))}, n.List.Nodes...)
		}
	}
}

// tickNode is {{adkproxyBudget LINE}} at pos.
func tickNode(pos parse.Pos, line int) parse.Node {
	arg := &parse.NumberNode{NodeType: parse.NodeNumber, Pos: pos, IsInt: true, IsUint: true, IsFloat: true,
		Int64: int64(line), Uint64: uint64(line), Float64: float64(line), Text: strconv.Itoa(line)}
	cmd := &parse.CommandNode{NodeType: parse.NodeCommand, Pos: pos,
		Args: []parse.Node{&parse.IdentifierNode{NodeType: parse.NodeIdentifier, Pos: pos, Ident: tick}, arg}}
	return &parse.ActionNode{NodeType: parse.NodeAction, Pos: pos, Line: line,
		Pipe: &parse.PipeNode{NodeType: parse.NodePipe, Pos: pos, Line: line, Cmds: []*parse.CommandNode{cmd}}}
}

// refusing stands in for the budgeted functions outside Execute.
var refusing = template.FuncMap{tick: func(int) (string, error) {
	return "", errors.New("a bounded template runs only through gotmpl.Execute")
}}

// Execute renders the template called name of t ("" for t itself) with
// data, within the bounds (limits: zero fields are the defaults). An error
// over a bound wraps ErrLimit and names the line.
func Execute(t *template.Template, name string, data any, limits Limits) (string, error) {
	r := &run{limits: limits.orDefaults()}
	r.deadline = time.Now().Add(r.limits.Time)
	r.out.max = r.limits.Output
	c, err := t.Clone()
	if err != nil {
		return "", err
	}
	c.Funcs(r.funcs())
	if name == "" {
		err = c.Execute(&r.out, data)
	} else {
		err = c.ExecuteTemplate(&r.out, name, data)
	}
	if err == nil {
		err = r.check(0)
	}
	if err != nil {
		return "", r.explain(err)
	}
	return r.out.b.String(), nil
}

// Limits overrides the bounds (for tests; zero is the default).
type Limits struct {
	Output, Built int
	Time          time.Duration
}

func (l Limits) orDefaults() Limits {
	if l.Output <= 0 {
		l.Output = MaxOutput
	}
	if l.Built <= 0 {
		l.Built = MaxBuilt
	}
	if l.Time <= 0 {
		l.Time = MaxTime
	}
	return l
}

// run is one rendering's budget.
type run struct {
	limits   Limits
	deadline time.Time
	out      capped
	built    int
	ticks    int
}

// limitError is a bound gone over; line 0 when the function that found it
// does not know its line (explain adds it from text/template's message).
type limitError struct {
	line int
	why  string
}

func (e *limitError) Error() string {
	if e.line > 0 {
		return fmt.Sprintf("%v: line %d: %s", ErrLimit, e.line, e.why)
	}
	return fmt.Sprintf("%v: %s", ErrLimit, e.why)
}

func (e *limitError) Unwrap() error { return ErrLimit }

// check reports the first bound the rendering is over.
func (r *run) check(line int) error {
	if r.out.over {
		return &limitError{line, fmt.Sprintf("the output would be more than %d bytes", r.limits.Output)}
	}
	if time.Now().After(r.deadline) {
		return &limitError{line, fmt.Sprintf("rendering took more than %v (a loop or a template calling itself without end?)", r.limits.Time)}
	}
	return nil
}

// charge counts n bytes a function is about to build.
func (r *run) charge(what string, n int) error {
	if n > r.limits.Output {
		return &limitError{0, fmt.Sprintf("%s would build %d bytes, more than %d", what, n, r.limits.Output)}
	}
	r.built += n
	if r.built > r.limits.Built {
		return &limitError{0, fmt.Sprintf("%s: the values this rendering built would total more than %d bytes", what, r.limits.Built)}
	}
	return r.check(0)
}

// execLine finds text/template's "template: NAME:LINE:COL:" location.
var execLine = regexp.MustCompile(`template: [^\n]*?:(\d+):\d+: `)

// explain turns an error of a bound into ours, with its line; other
// errors stay text/template's.
func (r *run) explain(err error) error {
	var le *limitError
	if !errors.As(err, &le) {
		return err
	}
	if le.line == 0 {
		if m := execLine.FindStringSubmatch(err.Error()); m != nil {
			le.line, _ = strconv.Atoi(m[1])
		}
	}
	return le
}

// capped keeps at most max bytes and notes that more were written.
type capped struct {
	b    strings.Builder
	max  int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if c.over || c.b.Len()+len(p) > c.max {
		c.over = true
		return len(p), nil // the next tick, function or the end reports it, with its line
	}
	return c.b.Write(p)
}
