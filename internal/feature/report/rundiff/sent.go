// Comparing what each agent's model was sent: model, generation config,
// system instruction and tool declarations, once per agent and invocation.

package rundiff

import (
	"slices"

	"github.com/adkproxy/adkproxy/internal/base/textfmt"
	"github.com/adkproxy/adkproxy/internal/data/recorded"
	"github.com/adkproxy/adkproxy/internal/wire"
	"github.com/adkproxy/adkproxy/matcher"
)

// diffSent compares, for every agent in both invocations, what its first
// step was sent.
func diffSent(o, n *recorded.Invocation) []Change {
	var out []Change
	for _, agent := range o.Agents {
		if !slices.Contains(n.Agents, agent) {
			continue
		}
		os, ok1 := sentBy(o, agent)
		ns, ok2 := sentBy(n, agent)
		if !ok1 || !ok2 {
			continue
		}
		if os.Model != ns.Model {
			out = append(out, Change{Kind: ModelChanged, Agent: agent, Old: os.Model, New: ns.Model})
		}
		for _, d := range matcher.DiffJSON("", nonNil(os.GenerationConfig), nonNil(ns.GenerationConfig)) {
			out = append(out, changeOf(ConfigChanged, agent, "", d))
		}
		if os.SystemInstruction != ns.SystemInstruction {
			out = append(out, Change{Kind: InstructionChange, Agent: agent, Old: os.SystemInstruction, New: ns.SystemInstruction,
				Words: matcher.WordDiff(os.SystemInstruction, ns.SystemInstruction)})
		}
		out = append(out, diffDeclarations(agent, os.Tools, ns.Tools)...)
	}
	return out
}

func sentBy(inv *recorded.Invocation, agent string) (recorded.Sent, bool) {
	for i := range inv.Steps {
		if s := &inv.Steps[i]; s.Agent == agent && s.Exchange != nil {
			return s.Sent(), true
		}
	}
	return recorded.Sent{}, false
}

// diffDeclarations compares tools by name: function declarations by their
// name, built-in tools (googleSearch, codeExecution) by their key.
func diffDeclarations(agent string, old, new []any) []Change {
	od, nd := declarations(old), declarations(new)
	var out []Change
	for _, name := range od.names {
		nv, ok := nd.byName[name]
		if !ok {
			out = append(out, Change{Kind: ToolsChanged, Agent: agent, Tool: name, Old: textfmt.Truncate(textfmt.JSON(od.byName[name]), maxShown)})
			continue
		}
		for _, d := range matcher.DiffJSON("", od.byName[name], nv) {
			out = append(out, changeOf(ToolsChanged, agent, name, d))
		}
	}
	for _, name := range nd.names {
		if _, ok := od.byName[name]; !ok {
			out = append(out, Change{Kind: ToolsChanged, Agent: agent, Tool: name, New: textfmt.Truncate(textfmt.JSON(nd.byName[name]), maxShown)})
		}
	}
	return out
}

// maxShown bounds a declaration quoted whole.
const maxShown = 120

type declared struct {
	names  []string
	byName map[string]any
}

func declarations(tools []any) declared {
	d := declared{byName: map[string]any{}}
	add := func(name string, v any) {
		if _, dup := d.byName[name]; !dup {
			d.names = append(d.names, name)
		}
		d.byName[name] = v
	}
	functions, builtIn := wire.FunctionTools(tools)
	for _, t := range append(builtIn, functions...) {
		add(t.Name, t.Value)
	}
	slices.Sort(d.names)
	return d
}

func nonNil(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}
