// gonja's filters, string, list and dict methods and lipsum(), each priced
// (budget.go) before it runs: what it would build is computed from its
// input and arguments, so a width, a count or a separator that asks for
// gigabytes is refused before gonja allocates them.

package jinja

import (
	"maps"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/nikolalohinski/gonja/v2"
	"github.com/nikolalohinski/gonja/v2/exec"
)

// arg is a call's argument by position or by keyword, nil when absent.
func arg(p *exec.VarArgs, i int, keyword string) *exec.Value {
	if v, ok := p.KwArgs[keyword]; ok {
		return v
	}
	if i >= 0 && i < len(p.Args) {
		return p.Args[i]
	}
	return nil
}

// text is v as a string, or "" when printing it would be over MaxOutput
// (its price is then over the limit anyway).
func text(v *exec.Value) string {
	if v == nil || v.IsNil() || sizeOf(v) > MaxOutput {
		return ""
	}
	return v.String()
}

// numberOr is number(v), or dflt when v is absent.
func numberOr(v *exec.Value, dflt int) int {
	if v == nil {
		return dflt
	}
	return number(v)
}

// replaceCost: s with every old replaced by new. A count is not trusted
// to lower it: gonja reads a count that is absent, nil, negative or NaN
// (and a float beyond int64) as "all".
func replaceCost(s string, old, new *exec.Value) int {
	o, n := text(old), text(new)
	k := strings.Count(s, o) // len(runes)+1 for ""
	return add(len(s), mul(k, len(n)-len(o)))
}

// digitsTotal is the sum of the numbers written in s: the widths and
// precisions of its format specs.
func digitsTotal(s string) int {
	total, n := 0, 0
	for _, r := range s + " " {
		if r >= '0' && r <= '9' {
			n = add(mul(n, 10), int(r-'0'))
			continue
		}
		total, n = add(total, n), 0
	}
	return total
}

// formatCost: a format string filled with args, each placeholder (a '%' or
// a '{') taken to print the largest of them, each width written in it at
// its value, and, when widths can come from the arguments ("%*d",
// "{0:{1}}"), each argument's value as a width too.
func formatCost(format string, placeholders string, p *exec.VarArgs) int {
	widthsFromArgs := strings.Contains(format, "*") && placeholders == "%" || nestedField.MatchString(format) && placeholders == "{"
	largest := 0
	for _, a := range append(slices.Collect(maps.Values(p.KwArgs)), p.Args...) {
		largest = max(largest, sizeOf(a))
		if widthsFromArgs {
			largest = max(largest, number(a))
		}
	}
	return add(len(format), digitsTotal(format), mul(strings.Count(format, placeholders), largest))
}

// nestedField is a replacement field whose spec holds another ("{0:{1}}").
var nestedField = regexp.MustCompile(`\{[^{}]*:[^{}]*\{`)

// filterPrices are the filters whose output is not about the size of
// their input; every other filter but freeFilters is priced at that
// (escaping or changing case makes at most a few times its input, itself
// within the limits).
var filterPrices = map[string]func(in *exec.Value, p *exec.VarArgs) int{
	"center": func(in *exec.Value, p *exec.VarArgs) int { return add(sizeOf(in), number(arg(p, 0, "width"))) },
	"indent": func(in *exec.Value, p *exec.VarArgs) int {
		width := 4
		if w := arg(p, 0, "width"); w != nil && w.IsString() {
			width = len(w.String())
		} else if w != nil {
			width = number(w)
		}
		return add(sizeOf(in), mul(strings.Count(text(in), "\n")+1, width))
	},
	"join": func(in *exec.Value, p *exec.VarArgs) int {
		items := elements(in)
		if in.IsString() {
			items = len(in.String())
		}
		return add(sizeOf(in), mul(items, sizeOf(arg(p, 0, "d"))))
	},
	"replace": func(in *exec.Value, p *exec.VarArgs) int {
		return add(sizeOf(in)-len(text(in)), replaceCost(text(in), arg(p, 0, "old"), arg(p, 1, "new")))
	},
	"format": func(in *exec.Value, p *exec.VarArgs) int { return add(sizeOf(in), formatCost(text(in), "%", p)) },
	"tojson": func(in *exec.Value, p *exec.VarArgs) int {
		return add(sizeOf(in), mul(sizeOf(in), number(arg(p, 0, "indent"))))
	},
	"batch": func(in *exec.Value, p *exec.VarArgs) int { return batchCost(in, p) },
	"slice": func(in *exec.Value, p *exec.VarArgs) int {
		return add(sizeOf(in), mul(number(arg(p, 0, "slices")), elementCost))
	},
	"list": func(in *exec.Value, p *exec.VarArgs) int { return add(sizeOf(in), mul(listLen(in), elementCost)) },
}

func batchCost(in *exec.Value, p *exec.VarArgs) int {
	fill := 0
	if f := arg(p, 1, "fill_with"); f != nil && !f.IsNil() {
		fill = mul(number(arg(p, 0, "linecount")), elementCost)
	}
	return add(sizeOf(in), mul(elements(in), elementCost), fill)
}

// freeFilters build nothing larger than a number or one of their inputs
// (their string arguments are priced per item all the same).
var freeFilters = map[string]bool{
	"abs": true, "attr": true, "count": true, "d": true, "default": true, "first": true, "float": true,
	"int": true, "last": true, "length": true, "max": true, "min": true, "random": true, "round": true,
	"safe": true, "sum": true, "wordcount": true, "filesizeformat": true,
}

// pricedFilters is gonja's filters, each priced first.
var pricedFilters = func() *exec.FilterSet {
	base := gonja.DefaultEnvironment.Filters
	out := exec.NewFilterSet(map[string]exec.FilterFunction{})
	for _, n := range setNames(base, "filters") {
		filter, _ := base.Get(n)
		price := filterPrices[n]
		switch {
		case freeFilters[n]:
			price = func(*exec.Value, *exec.VarArgs) int { return 0 }
		case price == nil:
			price = func(in *exec.Value, _ *exec.VarArgs) int { return sizeOf(in) }
		}
		what := "the " + n + " filter"
		_ = out.Register(n, func(e *exec.Evaluator, in *exec.Value, p *exec.VarArgs) *exec.Value {
			if g := guardOf(e.Environment.Context); g != nil && !in.IsError() {
				if err := g.build(what, add(price(in, p), perItemWork(in, p))); err != nil {
					return exec.AsValue(err)
				}
			}
			return filter(e, in, p)
		})
	}
	return out
}()

// perItemWork prices a filter's string arguments once per item of its
// input: an attribute name is looked up, a separator written, for each (a
// megabyte attribute over 100,000 items is minutes of work in one call,
// where the render time limit cannot stop it).
func perItemWork(in *exec.Value, p *exec.VarArgs) int {
	args := 0
	for _, a := range append(slices.Collect(maps.Values(p.KwArgs)), p.Args...) {
		if a.IsString() {
			args = add(args, len(a.String()))
		}
	}
	return mul(listLen(in), args)
}

// setNames are the names in one of gonja's filter or method sets, which
// offer no way to list them: read from the set's map by reflection.
func setNames(set any, field string) []string {
	m := reflect.ValueOf(set).Elem().FieldByName(field)
	names := make([]string, 0, m.Len())
	for _, k := range m.MapKeys() {
		names = append(names, k.String())
	}
	sort.Strings(names)
	return names
}

// strPrices are the string methods priced otherwise than at their
// string's length.
var strPrices = map[string]func(self string, p *exec.VarArgs) int{
	"center": widthCost, "ljust": widthCost, "rjust": widthCost, "zfill": widthCost,
	"expandtabs": func(s string, p *exec.VarArgs) int {
		return add(len(s), mul(strings.Count(s, "\t"), numberOr(arg(p, 0, "tabsize"), 8)))
	},
	"format":     func(s string, p *exec.VarArgs) int { return formatCost(s, "{", p) },
	"format_map": func(s string, p *exec.VarArgs) int { return formatCost(s, "{", p) },
	"replace": func(s string, p *exec.VarArgs) int {
		return replaceCost(s, arg(p, 0, "old"), arg(p, 1, "new"))
	},
	"join": func(s string, p *exec.VarArgs) int {
		items := arg(p, 0, "iterable")
		n := elements(items)
		if items != nil && items.IsString() {
			n = len(items.String())
		}
		return add(sizeOf(items), mul(n, len(s)))
	},
	"rsplit": func(s string, p *exec.VarArgs) int {
		return add(len(s), mul(max(numberOr(arg(p, 1, "maxsplit"), -1), strings.Count(s, " ")+1), elementCost))
	},
	"split": func(s string, p *exec.VarArgs) int {
		return add(len(s), mul(strings.Count(s, text(arg(p, 0, "sep")))+len(strings.Fields(s))+1, elementCost))
	},
	"splitlines": func(s string, p *exec.VarArgs) int { return add(len(s), mul(strings.Count(s, "\n")+1, elementCost)) },
}

func widthCost(s string, p *exec.VarArgs) int { return add(len(s), number(arg(p, 0, "width"))) }

// guardRef is the guard of the rendering under way with one parsed copy
// of a template (a method gets no evaluator, so no context to find the
// rendering's guard in).
type guardRef struct{ g *guard }

// pricedMethods is gonja's methods with the string, list and dict ones
// priced against the guard g holds when they run.
func pricedMethods(g *guardRef) exec.Methods {
	base := gonja.DefaultEnvironment.Methods
	m := base
	m.Str = priceMethods(base.Str, "str", g, func(self string, n string, p *exec.VarArgs) int {
		if price := strPrices[n]; price != nil {
			return price(self, p)
		}
		return len(self)
	})
	m.List = priceMethods(base.List, "list", g, func(self []any, n string, p *exec.VarArgs) int {
		switch n {
		case "append":
			return elementCost
		case "copy":
			return mul(len(self), elementCost)
		}
		return 0
	})
	m.Dict = priceMethods(base.Dict, "dict", g, func(self map[string]any, n string, p *exec.VarArgs) int {
		switch n {
		case "keys", "values", "items", "copy":
			return mul(len(self), elementCost)
		case "update":
			return mul(add(elements(arg(p, 0, "other")), len(p.KwArgs)), elementCost)
		case "setdefault":
			return elementCost
		}
		return 0
	})
	return m
}

func priceMethods[I any](set *exec.MethodSet[I], kind string, g *guardRef, price func(self I, name string, p *exec.VarArgs) int) *exec.MethodSet[I] {
	out := map[string]exec.Method[I]{}
	for _, n := range setNames(set, "methods") {
		method, _ := set.Get(n)
		what := kind + "." + n + "()"
		out[n] = func(self I, selfValue *exec.Value, p *exec.VarArgs) (any, error) {
			if err := g.g.build(what, price(self, n, p)); err != nil {
				return nil, err
			}
			return method(self, selfValue, p)
		}
	}
	return exec.NewMethodSet(out)
}

// pricedLipsum is gonja's lipsum() priced at its n paragraphs of up to max
// words.
var pricedLipsum = func() func(*exec.Evaluator, *exec.VarArgs) *exec.Value {
	v, _ := gonja.DefaultContext.Get("lipsum")
	lipsum := v.(func(*exec.Evaluator, *exec.VarArgs) *exec.Value)
	return func(e *exec.Evaluator, p *exec.VarArgs) *exec.Value {
		if g := guardOf(e.Environment.Context); g != nil {
			if err := g.build("lipsum()", mul(mul(numberOr(arg(p, 0, "n"), 5), numberOr(arg(p, 3, "max"), 100)), 12)); err != nil {
				return exec.AsValue(err)
			}
		}
		return lipsum(e, p)
	}
}()

// listLen is how many elements in|list has.
func listLen(in *exec.Value) int {
	if in.IsString() {
		return len(in.String())
	}
	return elements(in)
}
