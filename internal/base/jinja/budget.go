// What a rendering may build: every string or list an operator, filter,
// method or function makes is priced before it is made, so one asking for
// gigabytes ("x" * 99999999999, a join with a huge separator) is refused
// before anything is allocated, and all of them together stay within
// MaxBuilt (values kept in a list, a string doubled in a loop).

package jinja

import (
	"math"
	"reflect"
	"strconv"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// MaxBuilt bounds the bytes one rendering may build in all, counting a
// list's element as elementCost bytes.
const MaxBuilt = 8 * MaxOutput

// elementCost is what a list's element counts for: a range of MaxRange
// numbers made a list stays within MaxOutput.
const elementCost = 8

// maxPrintDepth: deeper values are refused rather than walked (gonja's own
// printing recurses without bound).
const maxPrintDepth = 200

// build charges n bytes that what is about to build, refusing a value over
// MaxOutput or a rendering whose values would total over MaxBuilt.
func (g *guard) build(what string, n int) error {
	if err := g.first(); err != nil {
		return err
	}
	if n > MaxOutput {
		return g.over("%s would build %s bytes, more than %d", what, bytesCount(n), MaxOutput)
	}
	g.mu.Lock()
	g.built += n
	total := g.built
	g.mu.Unlock()
	if total > MaxBuilt {
		return g.over("%s: the values this rendering built would total more than %d bytes", what, MaxBuilt)
	}
	return nil
}

// bytesCount prints a saturated count as "more than 2^60", not a number
// that only looks exact.
func bytesCount(n int) string {
	if n >= saturated {
		return "an unbounded number of"
	}
	return strconv.Itoa(n)
}

// saturated is where size arithmetic stops counting.
const saturated = 1 << 60

// mul and add saturate at saturated, and count nothing negative.
func mul(a, b int) int {
	if a <= 0 || b <= 0 {
		return 0
	}
	if a >= saturated/b {
		return saturated
	}
	return a * b
}

func add(ns ...int) int {
	total := 0
	for _, n := range ns {
		if n > 0 {
			total += min(n, saturated)
		}
		total = min(total, saturated)
	}
	return total
}

// number is a template value as the count gonja would take from it
// (Value.Integer), saturated instead of overflowing: floats, numeric
// strings and numbers beyond int64 count as what they say.
func number(v *exec.Value) int {
	switch {
	case v == nil || v.IsNil() || v.IsBool():
		return 0
	case v.IsFloat():
		return saturate(v.Float())
	case v.IsInteger():
		return v.Integer()
	case v.IsString():
		f, err := strconv.ParseFloat(v.String(), 64)
		if err != nil {
			return 0
		}
		return saturate(f)
	}
	return v.Integer()
}

func saturate(f float64) int {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= saturated:
		return saturated
	case f <= -saturated:
		return -saturated
	}
	return int(f)
}

var reflectValueType = reflect.TypeFor[reflect.Value]()

// printedSize is a lower bound on the length of v printed, counted no
// further than limit (a list holding one long string a million times is
// not walked a million times).
func printedSize(v any, limit int) int {
	n := 0
	var walk func(r reflect.Value, depth int)
	walk = func(r reflect.Value, depth int) {
		if n > limit {
			return
		}
		if depth > maxPrintDepth {
			n = saturated
			return
		}
		if !r.IsValid() {
			n++
			return
		}
		if r.Type() == reflectValueType && r.CanInterface() {
			walk(r.Interface().(reflect.Value), depth)
			return
		}
		switch r.Kind() {
		case reflect.Pointer, reflect.Interface:
			if r.IsNil() {
				n++
				return
			}
			walk(r.Elem(), depth)
		case reflect.String:
			n += r.Len()
		case reflect.Slice, reflect.Array:
			n += 2 + r.Len()
			for i := 0; i < r.Len() && n <= limit; i++ {
				walk(r.Index(i), depth+1)
			}
		case reflect.Map:
			n += 2 + 2*r.Len()
			for it := r.MapRange(); it.Next() && n <= limit; {
				walk(it.Key(), depth+1)
				walk(it.Value(), depth+1)
			}
		case reflect.Struct:
			for i := 0; i < r.NumField() && n <= limit; i++ {
				if r.Type().Field(i).IsExported() {
					walk(r.Field(i), depth+1)
				}
			}
		default:
			n++
		}
	}
	walk(reflect.ValueOf(v), 0)
	return n
}

// sizeOf is printedSize of a template value, counted up to past MaxOutput.
func sizeOf(v *exec.Value) int {
	if v == nil {
		return 0
	}
	if v.IsString() {
		return len(v.String())
	}
	return printedSize(v.Val, MaxOutput)
}

// elements is how many elements a list or dict value has (0 for others).
func elements(v *exec.Value) int {
	if v == nil || !(v.IsList() || v.IsDict()) {
		return 0
	}
	return v.Len()
}
