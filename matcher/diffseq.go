// Diffing the request arrays that are sequences rather than positions:
// the history (contents) and each tool's function declarations, aligned so
// one inserted turn or tool is one difference, not a change at every later
// index.

package matcher

import (
	"strconv"

	"github.com/adkproxy/adkproxy/internal/base/align"
	"github.com/adkproxy/adkproxy/internal/wire"
)

// sequenceKey says how the elements of the array at path are told apart
// when aligning it (nil for an array compared by position), whether an
// edited element between kept ones is paired and diffed field by field,
// and whether elements are addressed by their labels. The dialects say
// which arrays are sequences (wire.ArrayAt).
func sequenceKey(path string, recorded, got []any) (key func(v any) string, paired, labelled bool) {
	a := wire.ArrayAt(path, recorded, got)
	switch {
	case !a.Aligned:
		return nil, false, false
	case a.Key == nil:
		return canonicalKey, a.Paired, a.Labelled // the same only when equal
	}
	return func(v any) string { // a tool is its name, whatever else changed
		if k, ok := a.Key(v); ok {
			return "name:" + k
		}
		return canonicalKey(v)
	}, a.Paired, a.Labelled
}

func canonicalKey(v any) string { return string(AppendCanonical(nil, v)) }

// holdsJSON reports whether the string at path is JSON sent as a string
// (a dialect's wire.HoldsJSON: a chat tool call's arguments, a tool
// message's result), compared as the value it holds.
func holdsJSON(path string) bool { return wire.HoldsJSON(path) }

// isParts reports whether the array at path is compared by position with
// its elements addressed by their labels (a turn's parts:
// contents[2].parts[get_weather]).
func isParts(path string, recorded, got []any) bool {
	return wire.ArrayAt(path, recorded, got).Labelled
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

// diffSequence aligns recorded and got by key and lists what was removed
// (at its recorded index), added and changed (at the request's index).
// Between two kept elements, removed and added ones are paired up as
// changes when pairChanged, so an edited turn is diffed field by field;
// with labelled, an element is addressed by its label (messages[user#2]).
// elem is the place of the elements.
func diffSequence(path string, elem place, recorded, got []any, key func(any) string, pairChanged, labelled bool, b *budget) []Difference {
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
		if labelled { // by role: messages[user#2] is the second user message on its side
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
			out = append(out, diffJSON(at(added[k]), elem, recorded[removed[k]], got[added[k]], b)...)
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
			out = append(out, diffJSON(at(e.New), elem, recorded[i], got[e.New], b)...)
		case e.Op == align.Insert:
			added = append(added, e.New)
		default: // align.Keep
			flush()
			out = append(out, diffJSON(at(e.New), elem, recorded[e.Old], got[e.New], b)...) // same name, maybe other fields
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
