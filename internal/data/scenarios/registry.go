// A persona registry file: personas by id in place of (or beside) the
// pre-built catalogue, so a team can use ADK's own persona texts.

package scenarios

import (
	"fmt"
	"sync"

	"github.com/adkproxy/adkproxy/internal/base/pyjson"
	"github.com/adkproxy/adkproxy/internal/base/userfile"
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
	data, err := userfile.Read(path)
	if err != nil {
		return fmt.Errorf("persona registry: %w", err)
	}
	x, err := pyjson.Decode(path, data)
	if err != nil {
		return err
	}
	list := x
	if _, isObject := x.V.(*pyjson.Object); isObject {
		o, _ := x.Object()
		if err := x.CheckPyKeys(o, "personas"); err != nil {
			return err
		}
		pv, ok := x.Field(o, "personas")
		if !ok || pv.V == nil {
			return pv.Errorf(`missing: a persona registry is {"personas": [{"id", "description", "behaviors"}, ...]}`)
		}
		list = pv
	}
	items, err := list.List()
	if err != nil {
		return err
	}
	byID := map[string]Persona{}
	for i := range items {
		it := list.Elem(items, i)
		p, err := parsePersona(it)
		if err != nil {
			return err
		}
		if _, dup := byID[p.ID]; dup {
			return it.Errorf("persona id %q is used twice", p.ID)
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
