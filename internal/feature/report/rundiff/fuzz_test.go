package rundiff

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"

	"github.com/adkproxy/adkproxy/matcher"
)

// FuzzDiffArgs: any two JSON values as a tool call's arguments, decoded
// the way a step's tool calls are read (numbers as float64), diff without a panic
// in every format, and the call is reported changed exactly when the
// values differ.
func FuzzDiffArgs(f *testing.F) {
	for _, p := range [][2]string{
		{`{"days":3}`, `{"days":5}`}, {`{"temp_c":64.4}`, `{"temp_c":64}`}, {`{"n":3}`, `{"n":3.0}`},
		{`{"a":null}`, `{"a":0}`}, {`[[1,[2,[null]]],"x"]`, `[[1,[2,[3]]]]`}, {`"Zürich 🌧"`, `"Zurich"`},
		{`{"contents":[{"role":"user","parts":[{"text":"a"}]}]}`, `{"contents":[1e300]}`}, {`-0`, `0`}, {`true`, `{}`},
		{`{"k":[{"x":1.5e-7},{"y":"\u0000"}]}`, `{"k":[{"x":1.5e-7}]}`},
	} {
		f.Add([]byte(p[0]), []byte(p[1]))
	}
	old, new := loadWeather(f), loadWeather(f)
	oldCall := &old.Cassettes[0].Sessions[0].Invocations[0].Steps[0].ToolCalls[0]
	newCall := &new.Cassettes[0].Sessions[0].Invocations[0].Steps[0].ToolCalls[0]
	f.Fuzz(func(t *testing.T, a, b []byte) {
		oa, ok1 := argsOf(a)
		na, ok2 := argsOf(b)
		if !ok1 || !ok2 {
			return
		}
		oldCall.Args, newCall.Args = oa, na
		r := Diff("old", "new", old, new, Options{})
		for _, write := range []func(io.Writer, *Report) error{WriteJSON, WriteMarkdown,
			func(w io.Writer, r *Report) error { return WriteText(w, r, true) }} {
			if err := write(io.Discard, r); err != nil {
				t.Fatal(err)
			}
		}
		same := bytes.Equal(canonical(oa), canonical(na))
		if changed := r.Summary.Changes[ArgsChanged] > 0; changed == same {
			t.Fatalf("%s → %s: args changed %v, values equal %v: %+v", a, b, changed, same, r.Summary)
		}
	})
}

// argsOf decodes body as encoding/json does (numbers as float64), held
// under a key when it is not an object.
func argsOf(body []byte) (map[string]any, bool) {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return nil, false
	}
	if m, ok := v.(map[string]any); ok {
		return m, true
	}
	return map[string]any{"value": v}, true
}

func canonical(m map[string]any) []byte {
	b, _ := json.Marshal(m)
	v, _ := matcher.ParseJSON(b)
	return matcher.AppendCanonical(nil, v)
}
