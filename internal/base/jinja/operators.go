// The operators that build strings and lists (*, +, ~) and printing a
// value, priced before gonja evaluates them: the parsed template is
// rewritten so that each such operator, and each {{ }} output, is a call
// of a function of ours that checks the price and hands the operation
// back to gonja's evaluator.

package jinja

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/nodes"
	"github.com/nikolalohinski/gonja/v2/tokens"
)

// The context names of the functions the rewritten template calls, and of
// the operands handed back to gonja.
const (
	opFunc    = "__adkproxy_priced_op__"
	recvFunc  = "__adkproxy_priced_receiver__"
	printFunc = "__adkproxy_priced_print__"
	leftName  = "__adkproxy_left__"
	rightName = "__adkproxy_right__"
)

// pricedOperators are the operators that can build a value larger than
// their operands.
var pricedOperators = map[tokens.Type]string{tokens.Multiply: "*", tokens.Addition: "+", tokens.Tilde: "~"}

// rewrite makes every priced operator and every output in root a call of
// opFunc or printFunc, walking every node (gonja's control structures keep
// their expressions in unexported fields, hence the unsafe access).
func rewrite(root *nodes.Template) {
	seen := map[uintptr]bool{}
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer:
			if v.IsNil() || seen[v.Pointer()] {
				return
			}
			seen[v.Pointer()] = true
			if !v.CanInterface() {
				return
			}
			if _, isToken := v.Interface().(*tokens.Token); isToken {
				return
			}
			walk(v.Elem())
			if out, ok := v.Interface().(*nodes.Output); ok {
				out.Expression = printCall(out.Expression)
				out.Alternative = printCall(out.Alternative)
			}
		case reflect.Interface:
			if v.IsNil() {
				return
			}
			walk(v.Elem())
			if !v.CanSet() || !v.Elem().CanInterface() {
				return
			}
			if c, ok := v.Elem().Interface().(*nodes.Call); ok && c.Parent != nil {
				if guarded := methodGuard(c); reflect.TypeOf(guarded).AssignableTo(v.Type()) {
					v.Set(reflect.ValueOf(guarded))
				}
				return
			}
			if b, ok := v.Elem().Interface().(*nodes.BinaryExpression); ok {
				if _, priced := pricedOperators[b.Operator.Token.Type]; priced {
					if call := opCall(b); reflect.TypeOf(call).AssignableTo(v.Type()) {
						v.Set(reflect.ValueOf(call))
					}
				}
			}
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				walk(settable(v.Field(i)))
			}
		case reflect.Slice, reflect.Array:
			for i := 0; i < v.Len(); i++ {
				walk(settable(v.Index(i)))
			}
		case reflect.Map:
			if !v.CanInterface() {
				return
			}
			for it := v.MapRange(); it.Next(); {
				elem := reflect.New(v.Type().Elem()).Elem()
				elem.Set(it.Value())
				walk(elem)
				v.SetMapIndex(it.Key(), elem)
			}
		}
	}
	walk(reflect.ValueOf(root))
}

// settable is v, writable even when it is an unexported field.
func settable(v reflect.Value) reflect.Value {
	if v.CanSet() || !v.CanAddr() {
		return v
	}
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}

func nameNode(s string, at *tokens.Token) *nodes.Name {
	t := &tokens.Token{Type: tokens.Name, Val: s}
	if at != nil {
		t.Line, t.Col, t.Pos = at.Line, at.Col, at.Pos
	}
	return &nodes.Name{Name: t}
}

func opCall(b *nodes.BinaryExpression) *nodes.Call {
	at := b.Operator.Token
	return &nodes.Call{Location: at, Func: nameNode(opFunc, at), Args: []nodes.Expression{
		b.Left, b.Right, &nodes.Integer{Location: at, Val: int(at.Type)}, &nodes.Integer{Location: at, Val: at.Line}}}
}

func printCall(e nodes.Expression) nodes.Expression {
	if e == nil {
		return nil
	}
	at := e.Position()
	line := 0
	if at != nil {
		line = at.Line
	}
	return &nodes.Call{Location: at, Func: nameNode(printFunc, at), Args: []nodes.Expression{e, &nodes.Integer{Location: at, Val: line}}}
}

// pricedOp prices left OP right, then has gonja evaluate it.
func pricedOp(e *exec.Evaluator, p *exec.VarArgs) *exec.Value {
	left, right := p.Args[0], p.Args[1]
	op := tokens.Type(p.Args[2].Integer())
	what := fmt.Sprintf("line %d: %s", p.Args[3].Integer(), pricedOperators[op])
	if g := guardOf(e.Environment.Context); g != nil {
		if err := g.build(what, opCost(op, left, right)); err != nil {
			return exec.AsValue(err)
		}
	}
	ctx := e.Environment.Context.Inherit()
	ctx.Set(leftName, left)
	ctx.Set(rightName, right)
	env := *e.Environment
	env.Context = ctx
	sub := &exec.Evaluator{Config: e.Config, Environment: &env, Loader: e.Loader}
	return sub.Eval(&nodes.BinaryExpression{Left: nameNode(leftName, nil), Right: nameNode(rightName, nil),
		Operator: &nodes.BinOperator{Token: &tokens.Token{Type: op, Val: pricedOperators[op]}}})
}

// opCost is what gonja's evaluator builds for left OP right.
func opCost(op tokens.Type, left, right *exec.Value) int {
	if left.IsFloat() || right.IsFloat() {
		if op == tokens.Tilde {
			return add(sizeOf(left), sizeOf(right))
		}
		return 0 // arithmetic
	}
	switch op {
	case tokens.Multiply:
		if left.IsString() {
			return mul(len(left.String()), number(right))
		}
	case tokens.Addition:
		if left.IsList() {
			return mul(add(elements(left), elements(right)), elementCost)
		}
		if left.IsString() || right.IsString() {
			return add(sizeOf(left), sizeOf(right))
		}
	case tokens.Tilde:
		return add(sizeOf(left), sizeOf(right))
	}
	return 0
}

// methodGuard is c, a method call, behind a check of its receiver:
// gonja prints the receiver of every method call (for an error message it
// seldom needs), which for a list holding one long string many times is
// gigabytes. The check evaluates the receiver once more (a name, mostly),
// and "and" hands back the call's own value, so a method that changes its
// receiver (list.append) still changes the variable.
func methodGuard(c *nodes.Call) *nodes.BinaryExpression {
	at := c.Location
	line := 0
	if at != nil {
		line = at.Line
	}
	check := &nodes.Call{Location: at, Func: nameNode(recvFunc, at), Args: []nodes.Expression{c.Parent, &nodes.Integer{Location: at, Val: line}}}
	return &nodes.BinaryExpression{Left: check, Right: c, Operator: &nodes.BinOperator{Token: &tokens.Token{Type: tokens.And, Val: "and", Line: line}}}
}

// pricedReceiver charges printing a method's receiver (free for a string).
func pricedReceiver(e *exec.Evaluator, p *exec.VarArgs) *exec.Value {
	if v := p.Args[0]; !v.IsString() {
		if g := guardOf(e.Environment.Context); g != nil {
			if err := g.build(fmt.Sprintf("line %d: a method call (gonja prints its receiver)", p.Args[1].Integer()), sizeOf(v)); err != nil {
				return exec.AsValue(err)
			}
		}
	}
	return exec.AsValue(true)
}

// pricedPrint refuses to print a value whose printed form alone is over
// MaxOutput before gonja builds that form.
func pricedPrint(e *exec.Evaluator, p *exec.VarArgs) *exec.Value {
	v := p.Args[0]
	if n := sizeOf(v); n > MaxOutput {
		if g := guardOf(e.Environment.Context); g != nil {
			return exec.AsValue(g.over("line %d: printing a value of more than %d bytes", p.Args[1].Integer(), MaxOutput))
		}
	}
	return v
}
