// Parsing a template that can load no other, and rendering one.

package jinja

import (
	"fmt"

	"github.com/nikolalohinski/gonja/v2"
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/loaders"
)

// name is the one template the loader holds.
const name = "/template"

// Parse parses src; the error says it is not a valid Jinja template.
func Parse(src string) (*exec.Template, error) {
	loader, err := loaders.NewMemoryLoader(map[string]string{name: src})
	if err != nil {
		return nil, err
	}
	t, err := exec.NewTemplate(name, gonja.DefaultConfig, loader, gonja.DefaultEnvironment)
	if err != nil {
		return nil, fmt.Errorf("not a valid Jinja template: %w", err)
	}
	return t, nil
}

// Execute renders a parsed template with vars.
func Execute(t *exec.Template, vars map[string]any) (string, error) {
	return t.ExecuteToString(exec.NewContext(vars))
}

// Render parses src and renders it with vars.
func Render(src string, vars map[string]any) (string, error) {
	t, err := Parse(src)
	if err != nil {
		return "", err
	}
	return Execute(t, vars)
}
