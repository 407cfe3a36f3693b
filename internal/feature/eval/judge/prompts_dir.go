// Judge prompts a user swaps in (score --judge-prompts DIR): Go templates
// in place of adkproxy's, or ADK's own Python format-string templates,
// with the variables ADK fills in.

package judge

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/template"

	"github.com/adkproxy/adkproxy/internal/base/gotmpl"
	"github.com/adkproxy/adkproxy/internal/base/jinja"
	"github.com/adkproxy/adkproxy/internal/base/userfile"
	"github.com/adkproxy/adkproxy/scoring"
)

// adkPromptVars are, per call kind, the variables an ADK-style template
// (<kind>.txt, Python str.format placeholders) may use: ADK's names for
// the same inputs.
var adkPromptVars = map[string][]string{
	"final_response_match_v2":                {"prompt", "response", "golden_response"},
	"rubric_based_final_response_quality_v1": {"developer_instructions", "tool_declarations", "user_input", "response_steps", "final_response", "rubrics"},
	"rubric_based_tool_use_quality_v1":       {"tool_declarations", "user_input", "tool_usage", "rubrics", "developer_instructions", "response_steps"},
	"hallucinations_v1_segmenter":            {"response"},
	"hallucinations_v1_validator":            {"context", "sentences"},
}

// Prompts are the prompts a user swapped in, by call kind (LoadPrompts).
type Prompts map[string]*promptOverride

// promptOverride is one swapped-in prompt kind: a Go template (the same
// data and defined templates as the built-in one) or an ADK-style text.
type promptOverride struct {
	file string
	tmpl *template.Template
	// adk is the parsed ADK-style text: literal and variable pieces.
	adk []adkPiece
	// jinja is an ADK-style Jinja template (the simulator judge's).
	jinja *jinja.Template
}

// adkJinjaKinds are the prompts ADK writes as Jinja templates, which a
// user's <kind>.jinja replaces: the simulator judge's, without and with a
// persona.
var adkJinjaKinds = map[string]bool{
	scoring.PerTurnUserSimulatorQualityV1:                 true,
	scoring.PerTurnUserSimulatorQualityV1 + personaSuffix: true,
}

type adkPiece struct {
	text     string
	variable bool
}

// LoadPrompts reads the prompt files of dir: <kind>.tmpl (a Go
// text/template defining "main", and "property" for the rubric kinds, over
// the same data as adkproxy's prompt of that kind) or <kind>.txt (ADK's
// template text, Python str.format placeholders such as {golden_response},
// {{ and }} for literal braces, the variables of adkPromptVars). A file of
// an unknown kind, a template that does not parse and a placeholder the
// kind does not fill are errors naming the file.
func LoadPrompts(dir string) (Prompts, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("judge prompts: %w", err)
	}
	out := map[string]*promptOverride{}
	for _, e := range entries {
		if e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		ext := filepath.Ext(e.Name())
		kind := strings.TrimSuffix(e.Name(), ext)
		if _, ok := prompts[kind]; (!ok || (ext != ".tmpl" && ext != ".txt")) && !(ext == ".jinja" && adkJinjaKinds[kind]) {
			return nil, fmt.Errorf("%s: not a judge prompt: name it <kind>.tmpl (a Go template) or <kind>.txt (ADK's text), kind one of %s; or %s.jinja or %s%s.jinja (ADK's Jinja template of the simulator judge)",
				path, strings.Join(slices.Sorted(maps.Keys(prompts)), ", "), scoring.PerTurnUserSimulatorQualityV1, scoring.PerTurnUserSimulatorQualityV1, personaSuffix)
		}
		if _, dup := out[kind]; dup {
			return nil, fmt.Errorf("%s: %s has both a .tmpl and a .txt prompt: keep one", path, kind)
		}
		data, err := userfile.Read(path)
		if err != nil {
			return nil, fmt.Errorf("judge prompts: %w", err)
		}
		o := &promptOverride{file: path}
		if ext == ".jinja" {
			if o.jinja, err = jinja.Parse(string(data)); err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			out[kind] = o
			continue
		}
		if ext == ".tmpl" {
			if o.tmpl, err = gotmpl.Parse(kind, string(data)); err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			for _, part := range builtinParts(kind) {
				if o.tmpl.Lookup(part) == nil {
					return nil, fmt.Errorf("%s: defines no %q template, which adkproxy's %s prompt has ({{define %q}}…{{end}})", path, part, kind, part)
				}
			}
		} else {
			vars, ok := adkPromptVars[kind]
			if !ok {
				if adkJinjaKinds[kind] {
					return nil, fmt.Errorf("%s: ADK's %s prompt is a Jinja template: name it %s.jinja (or %s%s.jinja for scenarios with a persona), or write a Go template (%s.tmpl)", path, kind, kind, kind, personaSuffix, kind)
				}
				return nil, fmt.Errorf("%s: %s takes a Go template (%s.tmpl) only: ADK has no such prompt", path, kind, kind)
			}
			if o.adk, err = parseADKTemplate(string(data), vars); err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
		}
		out[kind] = o
	}
	return out, nil
}

// builtinParts are the templates adkproxy's prompt of kind defines.
func builtinParts(kind string) []string {
	var out []string
	for _, t := range prompts[kind].Templates() {
		if t.Name() != kind && !strings.HasSuffix(t.Name(), ".tmpl") && t.Tree != nil {
			out = append(out, t.Name())
		}
	}
	return out
}

// parseADKTemplate reads Python str.format text: {name} placeholders among
// vars, {{ and }} for literal braces.
func parseADKTemplate(s string, vars []string) ([]adkPiece, error) {
	var out []adkPiece
	var lit strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '{' && i+1 < len(s) && s[i+1] == '{', c == '}' && i+1 < len(s) && s[i+1] == '}':
			lit.WriteByte(c)
			i++
		case c == '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return nil, fmt.Errorf("an unclosed { at byte %d (write {{ for a literal brace)", i)
			}
			name := s[i+1 : i+end]
			if !slices.Contains(vars, name) {
				return nil, fmt.Errorf("{%s} at byte %d: not a variable of this prompt (it has %s; write {{ and }} for literal braces)", name, i, strings.Join(vars, ", "))
			}
			if lit.Len() > 0 {
				out = append(out, adkPiece{text: lit.String()})
				lit.Reset()
			}
			out = append(out, adkPiece{text: name, variable: true})
			i += end
		case c == '}':
			return nil, fmt.Errorf("a single } at byte %d (write }} for a literal brace)", i)
		default:
			lit.WriteByte(c)
		}
	}
	if lit.Len() > 0 {
		out = append(out, adkPiece{text: lit.String()})
	}
	return out, nil
}

func (o *promptOverride) renderADK(vars map[string]string) string {
	var b strings.Builder
	for _, p := range o.adk {
		if p.variable {
			b.WriteString(vars[p.text])
		} else {
			b.WriteString(p.text)
		}
	}
	return b.String()
}

// prompt renders the request parts of call kind: with the user's override
// when there is one, else adkproxy's own. data is what adkproxy's
// templates see; adk the same inputs under ADK's names, for an ADK-style
// text; properties the per-rubric data of the rubric kinds (their
// "property" parts).
func (j *Judge) prompt(kind string, data any, adk func() map[string]string, properties []rubric) ([]string, error) {
	o := j.prompts[kind]
	if o != nil && o.adk != nil {
		return []string{o.renderADK(adk())}, nil
	}
	exec := func(part string, v any) (string, error) {
		if o == nil {
			return render(kind, part, v)
		}
		// The user's template is data: bounded (gotmpl).
		out, err := gotmpl.Execute(o.tmpl, part, v, gotmpl.Limits{})
		if err != nil {
			return "", fmt.Errorf("%s: %w", o.file, err)
		}
		return out, nil
	}
	main, err := exec("main", data)
	if err != nil {
		return nil, err
	}
	parts := []string{main}
	for _, rb := range properties {
		p, err := exec("property", rb)
		if err != nil {
			return nil, err
		}
		parts = append(parts, p)
	}
	return parts, nil
}
