// The script's "answers:" block: every answer's shape changed on purpose
// (another modelVersion, a field set, added or of another type, a field
// dropped), to test what reads answers against a moving API (adkproxy
// drift).

package fake

import (
	"encoding/json"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// Reshape changes every scripted answer's JSON: ModelVersion replaces the
// modelVersion (the model asked for by default), Set sets each dotted
// path (usageMetadata.trafficType) to its value, creating objects on the
// way, and Drop removes each dotted path.
type Reshape struct {
	ModelVersion string
	Set          map[string]any
	Drop         []string
}

func parseReshape(name string, n *yaml.Node) (*Reshape, error) {
	if n == nil || n.Kind == 0 {
		return nil, nil
	}
	var raw struct {
		ModelVersion string         `yaml:"model_version"`
		Set          map[string]any `yaml:"set"`
		Drop         []string       `yaml:"drop"`
	}
	if err := decodeStrict(n, &raw, "model_version", "set", "drop"); err != nil {
		return nil, fmt.Errorf("%s:%d: answers: %v (it may have model_version: NAME, set: {path: value}, drop: [path])", name, n.Line, err)
	}
	for path := range raw.Set {
		if path == "" || strings.Contains(path, "..") {
			return nil, fmt.Errorf("%s:%d: answers.set: %q is not a dotted path such as usageMetadata.trafficType", name, n.Line, path)
		}
	}
	return &Reshape{ModelVersion: raw.ModelVersion, Set: raw.Set, Drop: raw.Drop}, nil
}

// apply reshapes each JSON body of an answer; nil r changes nothing.
func (r *Reshape) apply(bodies [][]byte) [][]byte {
	if r == nil {
		return bodies
	}
	out := make([][]byte, len(bodies))
	for i, b := range bodies {
		var v map[string]any
		if json.Unmarshal(b, &v) != nil {
			out[i] = b
			continue
		}
		if r.ModelVersion != "" {
			v["modelVersion"] = r.ModelVersion
		}
		for path, val := range r.Set {
			setPath(v, strings.Split(path, "."), val)
		}
		for _, path := range r.Drop {
			dropPath(v, strings.Split(path, "."))
		}
		out[i] = marshal(v)
	}
	return out
}

func setPath(m map[string]any, keys []string, val any) {
	for _, k := range keys[:len(keys)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	m[keys[len(keys)-1]] = val
}

func dropPath(m map[string]any, keys []string) {
	for _, k := range keys[:len(keys)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			return
		}
		m = next
	}
	delete(m, keys[len(keys)-1])
}
