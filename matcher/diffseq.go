// Diffing the request arrays that are sequences rather than positions:
// the history (contents) and each tool's function declarations, aligned so
// one inserted turn or tool is one difference, not a change at every later
// index.

package matcher

import (
	"strconv"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/align"
)

// sequenceKey says how the elements of the array at path are told apart
// when aligning it, or returns nil for arrays compared by position.
func sequenceKey(path string) func(v any) string {
	switch {
	case path == "contents", path == "messages": // messages: the OpenAI-compatible endpoint's history
		return canonicalKey // turns are the same only when equal
	case isDeclarations(path):
		return func(v any) string { // a tool is its name, whatever else changed
			if m, ok := v.(map[string]any); ok {
				if name, ok := m["name"].(string); ok {
					return "name:" + name
				}
			}
			return canonicalKey(v)
		}
	}
	return nil
}

func canonicalKey(v any) string { return string(AppendCanonical(nil, v)) }

// chatFunctions reports whether every element of both arrays is an OpenAI
// chat tool ({"type": "function", "function": {"name"...}}): the "tools"
// of a chat completion, aligned by function name as Gemini's declarations
// are.
func chatFunctions(a, b []any) bool {
	for _, v := range append(append([]any(nil), a...), b...) {
		m, _ := v.(map[string]any)
		if f, ok := m["function"].(map[string]any); !ok || f["name"] == nil {
			return false
		}
	}
	return len(a)+len(b) > 0
}

// functionKey is a chat tool's key when aligning: its function's name.
func functionKey(v any) string {
	if name := nameOf(v); name != "" {
		return "name:" + name
	}
	return canonicalKey(v)
}

// isToolCalls reports whether path is messages[...].tool_calls, whose
// calls are addressed by their function's name.
func isToolCalls(path string) bool {
	return strings.HasPrefix(path, "messages[") && strings.HasSuffix(path, "].tool_calls")
}

// holdsJSON reports whether the string at path is JSON sent as a string:
// a chat tool call's arguments, or a chat message's content (a tool
// message's result), compared as the value it holds.
func holdsJSON(path string) bool {
	return strings.HasPrefix(path, "messages[") && (strings.HasSuffix(path, ".function.arguments") || strings.HasSuffix(path, "].content"))
}

// isParts reports whether path is contents[N].parts.
func isParts(path string) bool {
	rest, ok := strings.CutPrefix(path, "contents[")
	if !ok {
		return false
	}
	n, ok := strings.CutSuffix(rest, "].parts")
	_, err := strconv.Atoi(n)
	return ok && err == nil
}

// partPlace addresses the i-th part of a content compared by position:
// a part calling or answering a function by that function's label
// (contents[2].parts[get_weather]) where both sides agree on it, else by
// its index.
func partPlace(path string, recorded, got []any, i int) string {
	var l string
	switch {
	case i >= len(got):
		l = label(recorded, i)
	case i >= len(recorded):
		l = label(got, i)
	case label(recorded, i) == label(got, i):
		l = label(got, i)
	}
	if l == "" {
		return path + "[" + strconv.Itoa(i) + "]"
	}
	return path + "[" + l + "]"
}

// labels is label for every element of values, in one pass over them.
func labels(values []any) []string {
	names := make([]string, len(values))
	total := map[string]int{}
	for i, v := range values {
		if names[i] = nameOf(v); isName(names[i]) {
			total[names[i]]++
		}
	}
	out := make([]string, len(values))
	seen := map[string]int{}
	for i, name := range names {
		switch n := total[name]; {
		case n == 0:
		case n == 1:
			out[i] = name
		default:
			seen[name]++
			out[i] = name + "#" + strconv.Itoa(seen[name])
		}
	}
	return out
}

// isDeclarations reports whether path is tools[N].functionDeclarations.
func isDeclarations(path string) bool {
	rest, ok := strings.CutPrefix(path, "tools[")
	if !ok {
		return false
	}
	n, ok := strings.CutSuffix(rest, "].functionDeclarations")
	_, err := strconv.Atoi(n)
	return ok && err == nil
}

// diffSequence aligns recorded and got by key and lists what was removed
// (at its recorded index), added and changed (at the request's index).
// Between two kept elements, removed and added ones are paired up as
// changes when pairChanged, so an edited turn is diffed field by field.
func diffSequence(path string, recorded, got []any, key func(any) string, pairChanged bool, b *budget) []Difference {
	rk, gk := make([]string, len(recorded)), make([]string, len(got))
	rn, gn := map[string]int{}, map[string]int{} // how often each key occurs, for place
	for i, v := range recorded {
		rk[i] = key(v)
		rn[rk[i]]++
	}
	for i, v := range got {
		gk[i] = key(v)
		gn[gk[i]]++
	}
	// A declaration is addressed by its name where that is unique on both
	// sides (tools[0].functionDeclarations[get_weather]); --ignore reads it.
	// Messages' role labels, worked out once per side when first needed:
	// label per element would make a long history's diff quadratic.
	var rl, gl []string
	roles := func(values []any, l *[]string) []string {
		if *l == nil {
			*l = labels(values)
		}
		return *l
	}
	place := func(keys []string, values []any, l *[]string, i int) string {
		if name := nameOf(values[i]); !pairChanged && isName(name) && keys[i] == "name:"+name && rn[keys[i]] <= 1 && gn[keys[i]] <= 1 {
			return path + "[" + name + "]"
		}
		if path == "messages" { // by role: messages[user#2] is the second user message on its side
			if name := roles(values, l)[i]; name != "" {
				return path + "[" + name + "]"
			}
		}
		return path + "[" + strconv.Itoa(i) + "]"
	}
	at := func(i int) string { return place(gk, got, &gl, i) }
	atRecorded := func(i int) string { return place(rk, recorded, &rl, i) }
	var out []Difference
	var removed, added []int // the run since the last kept pair
	flush := func() {
		pairs := 0
		if pairChanged {
			pairs = min(len(removed), len(added))
		}
		for k := range pairs {
			out = append(out, diffJSON(at(added[k]), recorded[removed[k]], got[added[k]], b)...)
		}
		for _, i := range removed[pairs:] {
			out = append(out, Difference{Path: atRecorded(i), Kind: Removed, Recorded: render(recorded[i])})
		}
		for _, j := range added[pairs:] {
			out = append(out, Difference{Path: at(j), Kind: Added, Got: render(got[j])})
		}
		removed, added = removed[:0], added[:0]
	}
	edits, _ := align.AlignWithin(rk, gk, func(x, y string) bool { return x == y }, &b.cells)
	movedFrom, moved := moves(edits, rk, gk, pairChanged)
	for _, e := range edits {
		switch {
		case e.Op == align.Delete && moved[e.Old]:
		case e.Op == align.Delete:
			removed = append(removed, e.Old)
		case e.Op == align.Insert && movedFrom[e.New] >= 0:
			flush()
			i := movedFrom[e.New]
			out = append(out, Difference{Path: at(e.New), Kind: Changed,
				Recorded: "at index " + strconv.Itoa(i), Got: "at index " + strconv.Itoa(e.New)})
			out = append(out, diffJSON(at(e.New), recorded[i], got[e.New], b)...)
		case e.Op == align.Insert:
			added = append(added, e.New)
		default: // align.Keep
			flush()
			out = append(out, diffJSON(at(e.New), recorded[e.Old], got[e.New], b)...) // same name, maybe other fields
		}
	}
	flush()
	return out
}

// moves pairs each inserted element with a deleted one of the same key (a
// tool declared in another place), unless keys identify whole values
// (pairChanged: then an equal turn elsewhere is a different place in the
// history). movedFrom[new] is the old index, or -1; moved[old] is set for
// the old elements paired.
func moves(edits []align.Edit, rk, gk []string, pairChanged bool) (movedFrom []int, moved []bool) {
	movedFrom, moved = make([]int, len(gk)), make([]bool, len(rk))
	for j := range movedFrom {
		movedFrom[j] = -1
	}
	if pairChanged {
		return movedFrom, moved
	}
	deleted := map[string][]int{}
	for _, e := range edits {
		if e.Op == align.Delete {
			deleted[rk[e.Old]] = append(deleted[rk[e.Old]], e.Old)
		}
	}
	for _, e := range edits {
		if e.Op != align.Insert {
			continue
		}
		if olds := deleted[gk[e.New]]; len(olds) > 0 {
			movedFrom[e.New], moved[olds[0]] = olds[0], true
			deleted[gk[e.New]] = olds[1:]
		}
	}
	return movedFrom, moved
}
