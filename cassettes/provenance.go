// The cassette's provenance block: written after the name, read back by
// the reference reader, and left out of files recorded before it existed.

package cassettes

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"gopkg.in/yaml.v3"
)

// provenanceFields are the keys of the provenance mapping.
var provenanceFields = []string{"recorded_at", "adkproxy", "upstream", "clients", "frameworks", "models"}

// provenanceNode renders p, nil for no provenance; empty parts are left out.
func provenanceNode(p *Provenance) (*yaml.Node, error) {
	if p == nil {
		return nil, nil
	}
	n := mapping()
	if !p.RecordedAt.IsZero() {
		n.Content = append(n.Content, strNode("recorded_at"),
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!timestamp", Value: p.RecordedAt.UTC().Format(time.RFC3339)})
	}
	if p.Adkproxy != "" {
		v, err := textNode(p.Adkproxy, "the provenance's adkproxy version")
		if err != nil {
			return nil, err
		}
		n.Content = append(n.Content, strNode("adkproxy"), v)
	}
	lists := []struct {
		key  string
		vals []string
	}{{"upstream", p.Upstream}, {"clients", p.Clients}, {"frameworks", p.Frameworks}}
	for _, l := range lists {
		if len(l.vals) == 0 {
			continue
		}
		list, err := textList(l.vals, "the provenance's "+l.key)
		if err != nil {
			return nil, err
		}
		n.Content = append(n.Content, strNode(l.key), list)
	}
	if len(p.Models) > 0 {
		models := mapping()
		for _, asked := range slices.Sorted(maps.Keys(p.Models)) {
			k, err := textNode(asked, "a provenance model")
			if err != nil {
				return nil, err
			}
			list, err := textList(p.Models[asked], "the provenance's model versions")
			if err != nil {
				return nil, err
			}
			models.Content = append(models.Content, k, list)
		}
		n.Content = append(n.Content, strNode("models"), models)
	}
	return n, nil
}

func textList(vals []string, what string) (*yaml.Node, error) {
	list := flowList()
	for _, v := range vals {
		s, err := textNode(v, what)
		if err != nil {
			return nil, err
		}
		list.Content = append(list.Content, s)
	}
	return list, nil
}

// provenance reads the provenance mapping; nil n (an older cassette) is
// no provenance.
func (r reader) provenance(n *yaml.Node) (*Provenance, error) {
	if n == nil {
		return nil, nil
	}
	f, err := r.fields(n, "provenance", provenanceFields...)
	if err != nil {
		return nil, err
	}
	p := &Provenance{}
	if at := f["recorded_at"]; at != nil {
		s, err := r.str(at, "provenance recorded_at")
		if err != nil {
			return nil, err
		}
		if p.RecordedAt, err = time.Parse(time.RFC3339, s); err != nil {
			return nil, r.errorf(at, "provenance recorded_at %q is not a time like 2026-01-31T12:00:00Z", s)
		}
	}
	if p.Adkproxy, err = r.str(f["adkproxy"], "provenance adkproxy"); err != nil {
		return nil, err
	}
	for key, dst := range map[string]*[]string{"upstream": &p.Upstream, "clients": &p.Clients, "frameworks": &p.Frameworks} {
		if *dst, err = r.strList(f[key], "provenance "+key); err != nil {
			return nil, err
		}
	}
	if m := f["models"]; m != nil {
		if m.Kind != yaml.MappingNode {
			return nil, r.errorf(m, "provenance models must be a mapping of the model asked for to the model versions answered")
		}
		p.Models = map[string][]string{}
		for i := 0; i+1 < len(m.Content); i += 2 {
			asked, err := r.str(m.Content[i], "a provenance model")
			if err != nil {
				return nil, err
			}
			if p.Models[asked], err = r.strList(m.Content[i+1], fmt.Sprintf("provenance models %q", asked)); err != nil {
				return nil, err
			}
		}
	}
	return p, nil
}

func (r reader) strList(n *yaml.Node, what string) ([]string, error) {
	items, err := r.list(n, what)
	if err != nil || n == nil {
		return nil, err
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		s, err := r.str(it, what+" item")
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}
