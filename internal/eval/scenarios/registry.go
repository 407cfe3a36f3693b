// A persona registry file: personas by id in place of (or beside) the
// pre-built catalogue, so a team can use ADK's own persona texts.

package scenarios

import (
	"fmt"
	"os"
	"sync"
)

// registry holds the personas of a registry file, by id; they win over
// the pre-built ones. Set once by the command, before anything is parsed.
var registry struct {
	sync.RWMutex
	byID map[string]Persona
}

// LoadPersonaRegistry reads a persona registry file — {"personas":
// [UserPersona…]} or a bare list, each persona as a custom one is written
// (id, description, behaviors with name, description,
// behavior_instructions, violation_rubrics) — and makes its personas the
// ones a scenario's persona id names, ahead of the pre-built catalogue. A
// duplicate id is an error naming it.
func LoadPersonaRegistry(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("persona registry: %w", err)
	}
	x, err := decode(path, data)
	if err != nil {
		return err
	}
	list := x
	if o, ok := x.v.(map[string]any); ok {
		if err := x.onlyKeys(o, "personas"); err != nil {
			return err
		}
		pv, ok := x.field(o, "personas")
		if !ok {
			return pv.errorf(`missing: a persona registry is {"personas": [{"id", "description", "behaviors"}, ...]}`)
		}
		list = pv
	}
	items, err := list.list()
	if err != nil {
		return err
	}
	byID := map[string]Persona{}
	for _, it := range items {
		p, err := parsePersona(it)
		if err != nil {
			return err
		}
		if _, dup := byID[p.ID]; dup {
			return it.errorf("persona id %q is used twice", p.ID)
		}
		byID[p.ID] = p
	}
	registry.Lock()
	registry.byID = byID
	registry.Unlock()
	return nil
}

// registered returns the registry's persona with this id.
func registered(id string) (Persona, bool) {
	registry.RLock()
	defer registry.RUnlock()
	p, ok := registry.byID[id]
	if ok {
		p.Behaviors = append([]Behavior(nil), p.Behaviors...)
		for i := range p.Behaviors {
			p.Behaviors[i] = p.Behaviors[i].clone()
		}
	}
	return p, ok
}
