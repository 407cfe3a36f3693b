// A faults file: a YAML document with a "faults:" list of specs.

package fault

import (
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/adkproxy/adkproxy/internal/base/userfile"
)

// ReadFile reads a faults file:
//
//	faults:
//	  - "call 1: 429"
//	  - "invocation 2 step 0 in weather: reset after 1 events"
func ReadFile(path string) ([]Fault, error) {
	data, err := userfile.Read(path)
	if err != nil {
		return nil, fmt.Errorf("faults file: %w", err)
	}
	return ParseFile(path, data)
}

// ParseFile parses the bytes of a faults file; name is used in errors.
func ParseFile(name string, data []byte) ([]Fault, error) {
	var doc struct {
		Faults []yaml.Node `yaml:"faults"`
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("%s: not YAML: %v", name, err)
	}
	if len(root.Content) == 0 {
		return nil, fmt.Errorf("%s: empty; it needs a \"faults:\" list, e.g. faults: [\"call 1: 429\"]", name)
	}
	if top := root.Content[0]; top.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(top.Content); i += 2 {
			if k := top.Content[i]; k.Value != "faults" {
				return nil, fmt.Errorf("%s:%d: unknown key %q; a faults file has only a \"faults:\" list", name, k.Line, k.Value)
			}
		}
	}
	if err := root.Content[0].Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %v; it needs a \"faults:\" list of specs", name, err)
	}
	if doc.Faults == nil {
		return nil, fmt.Errorf("%s: it has no \"faults:\" list, e.g. faults: [\"call 1: 429\"]", name)
	}
	var out []Fault
	for i, n := range doc.Faults {
		spec := n.Value
		if n.Kind == yaml.MappingNode && len(n.Content) == 2 && n.Content[0].Kind == yaml.ScalarNode && n.Content[1].Kind == yaml.ScalarNode {
			spec = n.Content[0].Value + ": " + n.Content[1].Value // - call 1: 429, unquoted, reads as a mapping
		} else if n.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("%s:%d: faults[%d] is not a string like \"call 1: 429\"", name, n.Line, i)
		}
		f, err := Parse(spec)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: faults[%d]: %v", name, n.Line, i, err)
		}
		out = append(out, f)
	}
	return out, nil
}
