// Bounds on what rendering one template may cost: templates come from
// eval data anyone can hand adkproxy, and gonja itself bounds nothing (a
// macro calling itself overflows the Go stack, which kills the process).

package jinja

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/nikolalohinski/gonja/v2"
	"github.com/nikolalohinski/gonja/v2/builtins"
	controlStructures "github.com/nikolalohinski/gonja/v2/builtins/control_structures"
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/nodes"
	"github.com/nikolalohinski/gonja/v2/parser"
	"github.com/nikolalohinski/gonja/v2/tokens"
)

// The limits, each named in the error that reports it.
const (
	// MaxRange is the most numbers range() gives, as in ADK's sandbox.
	MaxRange = 100_000
	// MaxOutput bounds the rendered text (and any macro's output).
	MaxOutput = 1 << 20
	// MaxRenderTime bounds one rendering.
	MaxRenderTime = 5 * time.Second
	// MaxSource bounds a template's text.
	MaxSource = 256 << 10
	// maxStackFrames bounds how deep rendering may nest (macros calling
	// macros): far below what would overflow the Go stack, far above what
	// any prompt needs (a macro call costs some 30 frames).
	maxStackFrames = 4_000
)

// ErrLimit: a template went over one of the limits above.
var ErrLimit = errors.New("template over a rendering limit")

// guardKey is where a rendering's guard sits in its context.
const guardKey = "__adkproxy_render_guard__"

// guard is one rendering's budget, and the first limit it went over
// (gonja wraps errors once per nested call, and not always unwrappably:
// the guard's is the one reported).
type guard struct {
	deadline time.Time
	mu       sync.Mutex
	err      error
	built    int // bytes built so far (budget.go)
}

// over records and returns a limit error.
func (g *guard) over(format string, args ...any) error {
	err := fmt.Errorf("%w: "+format, append([]any{ErrLimit}, args...)...)
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.err == nil {
		g.err = err
	}
	return err
}

func (g *guard) first() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.err
}

func (g *guard) checkTime() error {
	if time.Now().After(g.deadline) {
		return g.over("rendering took longer than %s (a loop that never ends?)", MaxRenderTime)
	}
	return nil
}

func guardOf(ctx *exec.Context) *guard {
	v, _ := ctx.Get(guardKey)
	g, _ := v.(*guard)
	return g
}

// environment is gonja's, with range() capped and every loop and macro
// body made to check the budget (limits.go's checkpoint) as it runs.
var environment = func() *exec.Environment {
	ctx := gonja.DefaultContext.Inherit()
	ctx.Set("range", cappedRange)
	ctx.Set("lipsum", pricedLipsum)
	ctx.Set(opFunc, pricedOp)
	ctx.Set(printFunc, pricedPrint)
	ctx.Set(recvFunc, pricedReceiver)
	structures := exec.NewControlStructureSet(map[string]parser.ControlStructureParser{})
	structures.Update(builtins.ControlStructures)
	for _, name := range []string{"for", "macro", "call"} {
		inner, _ := builtins.ControlStructures.Get(name)
		structures.Replace(name, withCheckpoint(inner))
	}
	return &exec.Environment{
		Context:           ctx,
		Filters:           pricedFilters,
		Tests:             gonja.DefaultEnvironment.Tests,
		ControlStructures: structures,
		Methods:           gonja.DefaultEnvironment.Methods,
	}
}()

// cappedRange is range() giving at most MaxRange numbers, as a list: a
// channel's producer would be left blocked when a loop stops early.
func cappedRange(e *exec.Evaluator, params *exec.VarArgs) ([]int, error) {
	start, stop, step := 0, 0, 1
	ints := true
	for _, a := range params.Args {
		ints = ints && a.IsInteger()
	}
	switch n := len(params.Args); {
	case !ints || n == 0 || n > 3:
		return nil, exec.ErrInvalidCall(errors.New("expected signature is [start, ]stop[, step] where all arguments are integers"))
	case n == 1:
		stop = params.Args[0].Integer()
	default:
		start, stop = params.Args[0].Integer(), params.Args[1].Integer()
		if n == 3 {
			step = params.Args[2].Integer()
		}
	}
	if step == 0 {
		return nil, exec.ErrInvalidCall(errors.New("step cannot be 0"))
	}
	count := 0
	if step > 0 && stop > start {
		count = (stop - start + step - 1) / step
	} else if step < 0 && start > stop {
		count = (start - stop - step - 1) / -step
	}
	g := guardOf(e.Environment.Context)
	if count > MaxRange || count < 0 {
		if g != nil {
			return nil, g.over("range() of %d numbers, more than %d", count, MaxRange)
		}
		return nil, fmt.Errorf("%w: range() of %d numbers, more than %d", ErrLimit, count, MaxRange)
	}
	if g != nil {
		if err := g.checkTime(); err != nil {
			return nil, err
		}
	}
	out := make([]int, count)
	for i, v := 0, start; i < count; i, v = i+1, v+step {
		out[i] = v
	}
	return out, nil
}

// withCheckpoint parses a control structure as gonja does and puts a
// checkpoint first in each body it has, so the budget is checked on every
// iteration and every macro call.
func withCheckpoint(inner parser.ControlStructureParser) parser.ControlStructureParser {
	return func(p *parser.Parser, args *parser.Parser) (nodes.ControlStructure, error) {
		cs, err := inner(p, args)
		if err != nil {
			return cs, err
		}
		at := p.Current()
		mark := func(w *nodes.Wrapper) {
			if w != nil {
				w.Nodes = append([]nodes.Node{&nodes.ControlStructureBlock{Location: at, Name: "checkpoint", ControlStructure: checkpoint{at}}}, w.Nodes...)
			}
		}
		for _, w := range bodies(cs) {
			mark(w)
		}
		return cs, nil
	}
}

// bodies are the parts of a control structure that run repeatedly.
func bodies(cs nodes.ControlStructure) []*nodes.Wrapper {
	switch c := cs.(type) {
	case *controlStructures.ForControlStructure:
		return []*nodes.Wrapper{c.BodyWrapper}
	case *controlStructures.MacroControlStructure:
		return []*nodes.Wrapper{c.Wrapper}
	case *controlStructures.CallControlStructure:
		return []*nodes.Wrapper{c.Body}
	}
	return nil
}

// checkpoint checks the rendering's budget: time, output so far, depth.
type checkpoint struct{ at *tokens.Token }

func (c checkpoint) Position() *tokens.Token { return c.at }
func (c checkpoint) String() string          { return "checkpoint" }

func (c checkpoint) Execute(r *exec.Renderer, _ *nodes.ControlStructureBlock) error {
	g := guardOf(r.Environment.Context)
	if g == nil {
		return nil
	}
	if err := g.first(); err != nil {
		// Some statements ({% do %}) drop an error: the loop ends here.
		return err
	}
	if err := g.checkTime(); err != nil {
		return err
	}
	if n := outputLen(r.Output); n > MaxOutput {
		return g.over("the output grew past %d bytes", MaxOutput)
	}
	var pcs [maxStackFrames]uintptr
	if runtime.Callers(0, pcs[:]) == len(pcs) {
		return g.over("macros nest too deeply (a macro that calls itself without end?)")
	}
	return nil
}

func outputLen(w io.Writer) int {
	switch o := w.(type) {
	case *strings.Builder:
		return o.Len()
	case *limitedWriter:
		return o.n
	case interface{ Len() int }:
		return o.Len()
	}
	return 0
}

// limitedWriter refuses output past MaxOutput and after the deadline.
type limitedWriter struct {
	b strings.Builder
	n int
	g *guard
}

func (w *limitedWriter) Write(p []byte) (int, error) {
	if w.n+len(p) > MaxOutput {
		return 0, w.g.over("the output grew past %d bytes", MaxOutput)
	}
	if err := w.g.checkTime(); err != nil {
		return 0, err
	}
	w.n += len(p)
	return w.b.Write(p)
}
