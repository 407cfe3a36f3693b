// The functions a bounded template calls: the tick, and text/template's
// builtins that build strings, priced from their arguments before they
// build (a variable doubled by printf in a loop stops at MaxBuilt).

package gotmpl

import (
	"fmt"
	"reflect"
	"text/template"
)

func (r *run) funcs() template.FuncMap {
	return template.FuncMap{
		tick: func(line int) (string, error) {
			r.ticks++
			if r.out.over || r.ticks&255 == 0 {
				return "", r.check(line)
			}
			return "", nil
		},
		"printf": func(format string, args ...any) (string, error) {
			n, err := formatCost(format)
			if err != nil {
				return "", &limitError{0, "printf: " + err.Error()}
			}
			if err := r.charge("printf", n+argsCost(args)); err != nil {
				return "", err
			}
			return fmt.Sprintf(format, args...), nil
		},
		"print": func(args ...any) (string, error) {
			if err := r.charge("print", argsCost(args)+len(args)); err != nil {
				return "", err
			}
			return fmt.Sprint(args...), nil
		},
		"println": func(args ...any) (string, error) {
			if err := r.charge("println", argsCost(args)+len(args)+1); err != nil {
				return "", err
			}
			return fmt.Sprintln(args...), nil
		},
		// The escapers make at most 6 bytes of one (\u0027, &#39;).
		"html": func(args ...any) (string, error) {
			if err := r.charge("html", 6*argsCost(args)); err != nil {
				return "", err
			}
			return template.HTMLEscaper(args...), nil
		},
		"js": func(args ...any) (string, error) {
			if err := r.charge("js", 6*argsCost(args)); err != nil {
				return "", err
			}
			return template.JSEscaper(args...), nil
		},
		"urlquery": func(args ...any) (string, error) {
			if err := r.charge("urlquery", 3*argsCost(args)); err != nil {
				return "", err
			}
			return template.URLQueryEscaper(args...), nil
		},
	}
}

// argsCost is what printing args costs at least: a string or bytes its
// length; a number or bool a few bytes; anything else (a value of the data,
// which no template can build) what printing it makes.
func argsCost(args []any) int {
	n := 0
	for _, a := range args {
		switch v := a.(type) {
		case string:
			n += len(v)
		case []byte:
			n += len(v)
		case nil, bool, int, int64, uint64, float64, float32, int32, uint, uint32:
			n += 32
		default:
			rv := reflect.ValueOf(a)
			if rv.Kind() == reflect.String {
				n += rv.Len()
			} else {
				n += len(fmt.Sprint(a))
			}
		}
	}
	return n
}

// formatCost is the bytes printf's format adds beyond its arguments: its
// own length and its widths and precisions; a width taken from an
// argument (*) is refused, since it could be any number.
func formatCost(format string) (int, error) {
	n := len(format)
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
	spec:
		for i++; i < len(format); i++ {
			switch c := format[i]; {
			case c == '*':
				return 0, fmt.Errorf("a width or precision from an argument (*) is not allowed")
			case c >= '0' && c <= '9':
				w := 0
				for ; i+1 < len(format) && format[i+1] >= '0' && format[i+1] <= '9'; i++ {
					w = min(w*10+int(format[i]-'0'), 1<<30)
				}
				n += min(w*10+int(format[i]-'0'), 1<<30)
			case c == '.' || c == '+' || c == '-' || c == '#' || c == ' ' || c == '[' || c == ']':
			default:
				break spec
			}
		}
	}
	return n, nil
}
