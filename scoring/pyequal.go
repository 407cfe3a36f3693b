// Python's == on JSON values, which is how ADK compares tool arguments.

package scoring

import (
	"encoding/json"
	"math"
	"math/big"
	"reflect"
	"strings"
)

// pyEqual reports whether two JSON-like values are equal as Python's ==
// finds them after json.loads, which is how ADK compares tool arguments:
// deep; object keys in any order; list order kept; numbers by value across
// int and float (1 == 1.0), and a boolean is the integer 0 or 1 (True == 1
// == 1.0); null equals only null; strings never equal numbers. Integers are
// compared exactly when they come as json.Number (eval set files), so 2**53+1
// differs from 2**53 as in Python; float64 values compare as floats.
func pyEqual(a, b any) bool {
	if na, ok := toNum(a); ok {
		nb, ok := toNum(b)
		return ok && na.equal(nb)
	}
	switch a := a.(type) {
	case nil:
		return b == nil
	case string:
		s, ok := b.(string)
		return ok && a == s
	case map[string]any:
		m, ok := asMap(b)
		return ok && mapsEqual(a, m)
	case []any:
		l, ok := asList(b)
		return ok && listsEqual(a, l)
	}
	if m, ok := asMap(a); ok {
		m2, ok := asMap(b)
		return ok && mapsEqual(m, m2)
	}
	if l, ok := asList(a); ok {
		l2, ok := asList(b)
		return ok && listsEqual(l, l2)
	}
	if _, ok := toNum(b); ok {
		return false
	}
	return reflect.DeepEqual(a, b)
}

// argsEqual compares two argument maps as ADK does (FunctionCall.args ==):
// a nil map is Python's None, so nil differs from an empty map.
func argsEqual(a, b map[string]any) bool {
	if (a == nil) != (b == nil) {
		return false
	}
	return mapsEqual(a, b)
}

func mapsEqual(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || !pyEqual(v, w) {
			return false
		}
	}
	return true
}

func listsEqual(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !pyEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}

// asMap accepts map[string]any and, for values built in Go, any map with
// string keys.
func asMap(v any) (map[string]any, bool) {
	switch v := v.(type) {
	case map[string]any:
		return v, true
	case nil:
		return nil, false
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Map || rv.Type().Key().Kind() != reflect.String {
		return nil, false
	}
	m := make(map[string]any, rv.Len())
	it := rv.MapRange()
	for it.Next() {
		m[it.Key().String()] = it.Value().Interface()
	}
	return m, true
}

func asList(v any) ([]any, bool) {
	switch v := v.(type) {
	case []any:
		return v, true
	case nil, string, []byte:
		return nil, false
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return nil, false
	}
	l := make([]any, rv.Len())
	for i := range l {
		l[i] = rv.Index(i).Interface()
	}
	return l, true
}

// pyNum is a Python number: an exact integer or a float.
type pyNum struct {
	isInt bool
	i     *big.Int // when isInt and the value does not fit small
	small int64
	f     float64
}

func toNum(v any) (pyNum, bool) {
	switch v := v.(type) {
	case bool:
		if v {
			return pyNum{isInt: true, small: 1}, true
		}
		return pyNum{isInt: true}, true
	case float64:
		return pyNum{f: v}, true
	case float32:
		return pyNum{f: float64(v)}, true
	case int:
		return pyNum{isInt: true, small: int64(v)}, true
	case int64:
		return pyNum{isInt: true, small: v}, true
	case int32:
		return pyNum{isInt: true, small: int64(v)}, true
	case uint64:
		if v > math.MaxInt64 {
			return pyNum{isInt: true, i: new(big.Int).SetUint64(v)}, true
		}
		return pyNum{isInt: true, small: int64(v)}, true
	case uint:
		return toNum(uint64(v))
	case uint32:
		return pyNum{isInt: true, small: int64(v)}, true
	case json.Number:
		s := string(v)
		if strings.ContainsAny(s, ".eE") {
			f, err := v.Float64()
			if err != nil && !math.IsInf(f, 0) {
				return pyNum{}, false
			}
			return pyNum{f: f}, true
		}
		if n, err := v.Int64(); err == nil {
			return pyNum{isInt: true, small: n}, true
		}
		i, ok := new(big.Int).SetString(s, 10)
		if !ok {
			return pyNum{}, false
		}
		return pyNum{isInt: true, i: i}, true
	}
	return pyNum{}, false
}

func (n pyNum) bigInt() *big.Int {
	if n.i != nil {
		return n.i
	}
	return big.NewInt(n.small)
}

func (n pyNum) equal(o pyNum) bool {
	switch {
	case !n.isInt && !o.isInt:
		return n.f == o.f
	case n.isInt && o.isInt:
		if n.i == nil && o.i == nil {
			return n.small == o.small
		}
		return n.bigInt().Cmp(o.bigInt()) == 0
	case n.isInt:
		return intEqualsFloat(n, o.f)
	default:
		return intEqualsFloat(o, n.f)
	}
}

// intEqualsFloat compares exactly, as Python compares int with float.
func intEqualsFloat(i pyNum, f float64) bool {
	if math.IsInf(f, 0) || math.IsNaN(f) || f != math.Trunc(f) {
		return false
	}
	if i.i == nil && math.Abs(f) < 1<<53 {
		return float64(i.small) == f && int64(f) == i.small
	}
	bf := new(big.Float).SetFloat64(f)
	bi := new(big.Float).SetInt(i.bigInt())
	return bf.Cmp(bi) == 0
}

// number returns a JSON-like number as float64.
func number(v any) (float64, bool) {
	if _, isBool := v.(bool); isBool {
		return 0, false
	}
	n, ok := toNum(v)
	if !ok {
		return 0, false
	}
	if !n.isInt {
		return n.f, true
	}
	if n.i != nil {
		f, _ := new(big.Float).SetInt(n.i).Float64()
		return f, true
	}
	return float64(n.small), true
}
