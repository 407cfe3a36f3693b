// The shape of an answer: every field's path and JSON type, arrays'
// elements merged, so two answers compare by what fields they have, not
// by what they say.

package drift

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/wire"
)

// shapeOf is the answer's fields, path → JSON type, over every payload
// (each SSE event) of the response.
func shapeOf(r *cassettes.Response) map[string]string {
	out := map[string]string{}
	for _, p := range wire.Payloads(r) {
		var v any
		if json.Unmarshal(p, &v) == nil {
			walkShape("", v, out)
		}
	}
	return out
}

func walkShape(path string, v any, out map[string]string) {
	t := jsonType(v)
	if path != "" {
		if old, ok := out[path]; ok && old != t && (old == "null" || t == "null") {
			t = old + "|" + t // null in one event, a value in another: not a type change
		}
		out[path] = t
	}
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			// a part of another kind is another behaviour (a text for a call),
			// reported as such, not as a change of shape
			if strings.HasSuffix(path, "parts[]") && wire.IsPartKind(k) {
				continue
			}
			walkShape(join(path, k), e, out)
		}
	case []any:
		for _, e := range v {
			walkShape(path+"[]", e, out)
		}
	}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func jsonType(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	}
	return "null"
}

// shapeChanges lists the fields added, removed and of another type in the
// live answer against the recorded one, by path. A field below one that
// was added or removed is not listed again.
func shapeChanges(recorded, live map[string]string) []Change {
	var out []Change
	under := func(path string, list []string) bool {
		return slices.ContainsFunc(list, func(p string) bool { return strings.HasPrefix(path, p+".") || strings.HasPrefix(path, p+"[]") })
	}
	var added, removed []string
	for _, path := range slices.Sorted(maps.Keys(live)) {
		old, ok := recorded[path]
		switch {
		case !ok && !under(path, added):
			added = append(added, path)
			out = append(out, Change{Kind: Shape, What: WhatFieldAdded, Severity: Low, Path: path, Live: live[path]})
		case ok && old != live[path] && !sameTypeWithNull(old, live[path]):
			out = append(out, Change{Kind: Shape, What: WhatTypeChanged, Severity: High, Path: path, Recorded: old, Live: live[path]})
		}
	}
	for _, path := range slices.Sorted(maps.Keys(recorded)) {
		if _, ok := live[path]; !ok && !under(path, removed) {
			removed = append(removed, path)
			out = append(out, Change{Kind: Shape, What: WhatFieldRemoved, Severity: High, Path: path, Recorded: recorded[path]})
		}
	}
	return out
}

// sameTypeWithNull: "string|null" and "string" are one type, and null
// is any type's absent value.
func sameTypeWithNull(a, b string) bool {
	if a == "null" || b == "null" {
		return true
	}
	strip := func(s string) string {
		s = strings.ReplaceAll(s, "|null", "")
		return strings.ReplaceAll(s, "null|", "")
	}
	return strip(a) == strip(b)
}
