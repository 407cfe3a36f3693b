// The prompts: adkproxy's own text, one embedded text/template file per
// judge call kind under prompts/, each ending with the output format its
// parser (parse.go) expects.

package judge

import (
	"embed"
	"strings"
	"text/template"
)

//go:embed prompts/*.tmpl
var promptFiles embed.FS

// prompts are the parsed templates by file name without ".tmpl". Each has
// a "main" template, the first part of the request; the rubric prompts
// also have "property", one more part per rubric, so that a rubric that
// changed since the recording shows as its own part in replay's diff.
var prompts = func() map[string]*template.Template {
	entries, err := promptFiles.ReadDir("prompts")
	if err != nil {
		panic(err)
	}
	out := map[string]*template.Template{}
	for _, e := range entries {
		name := strings.TrimSuffix(e.Name(), ".tmpl")
		out[name] = template.Must(template.New(name).ParseFS(promptFiles, "prompts/"+e.Name()))
	}
	return out
}()

// render executes template part of prompt name with data.
func render(name, part string, data any) (string, error) {
	var b strings.Builder
	if err := prompts[name].ExecuteTemplate(&b, part, data); err != nil {
		return "", err
	}
	return b.String(), nil
}
