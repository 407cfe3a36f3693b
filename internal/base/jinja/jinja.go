// Parsing a template that can load no other, and rendering one.

package jinja

import (
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/nikolalohinski/gonja/v2"
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/loaders"
)

// name is the one template the loader holds.
const name = "/template"

// Template is a template known to parse. Renderings reuse parsed copies,
// one rendering at a time each: gonja's methods get no context, so each
// copy's priced methods read the budget of the rendering that holds it.
type Template struct {
	src string
	// idle are the copies no rendering holds (not a sync.Pool: a garbage
	// collection would empty it between a conversation's turns).
	mu   sync.Mutex
	idle []*parsed
}

// parsed is one parsed copy of a Template, the budget its priced methods
// charge, and the texts render_string_filter parsed while rendering it.
type parsed struct {
	tmpl  *exec.Template
	guard guardRef
	texts texts
}

// Parse parses src; the error says it is not a valid Jinja template.
func Parse(src string) (*Template, error) {
	t := &Template{src: src}
	p, err := t.parse()
	if err != nil {
		return nil, err
	}
	t.idle = append(t.idle, p)
	return t, nil
}

// parse makes a parsed copy of t in an environment of its own.
func (t *Template) parse() (*parsed, error) {
	p := &parsed{}
	env := *environment
	env.Methods = pricedMethods(&p.guard)
	tmpl, err := parse(t.src, &env)
	if err != nil {
		return nil, err
	}
	p.tmpl = tmpl
	return p, nil
}

// take is an idle parsed copy, or nil.
func (t *Template) take() *parsed {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(t.idle)
	if n == 0 {
		return nil
	}
	p := t.idle[n-1]
	t.idle = t.idle[:n-1]
	return p
}

func parse(src string, env *exec.Environment) (t *exec.Template, err error) {
	// gonja's lexer panics on some input ("{{0." before a non-ASCII
	// letter): an invalid template, not a crash.
	defer func() {
		if p := recover(); p != nil {
			t, err = nil, fmt.Errorf("not a valid Jinja template: the lexer failed: %v", p)
		}
	}()
	if len(src) > MaxSource {
		return nil, fmt.Errorf("%w: the template is %d bytes, more than %d", ErrLimit, len(src), MaxSource)
	}
	if line := unlexableNumber(src); line > 0 {
		return nil, fmt.Errorf(`not a valid Jinja template: line %d: a number followed by "." and a non-ASCII character, which gonja cannot read (it loops without end); put a space after the dot`, line)
	}
	loader, err := loaders.NewMemoryLoader(map[string]string{name: src})
	if err != nil {
		return nil, err
	}
	t, err = exec.NewTemplate(name, gonja.DefaultConfig, loader, env)
	if err != nil {
		return nil, fmt.Errorf("not a valid Jinja template: %w", err)
	}
	rewrite(t.Root())
	return t, nil
}

// Execute renders a parsed template with vars, within the limits of
// limits.go and budget.go: going over one is an error wrapping ErrLimit,
// never a crash. Renderings may run at once.
func Execute(t *Template, vars map[string]any) (string, error) {
	p := t.take()
	if p == nil {
		var err error
		if p, err = t.parse(); err != nil {
			return "", err
		}
	}
	g := &guard{deadline: time.Now().Add(MaxRenderTime)}
	p.guard.g = g
	ctx := exec.NewContext(map[string]any{guardKey: g, textsKey: &p.texts})
	for k, v := range vars {
		ctx.Set(k, v)
	}
	out := &limitedWriter{g: g}
	panicked := false
	err := func() (err error) {
		// gonja panics on some input ("a" * -1): an error, not a crash.
		defer func() {
			if r := recover(); r != nil {
				panicked = true
				err = fmt.Errorf("the template failed: %v", r)
			}
		}()
		return p.tmpl.Execute(out, ctx)
	}()
	p.guard.g = nil
	if !panicked {
		// A rendering cut short by a panic may leave gonja's state half
		// changed: that copy is dropped.
		t.mu.Lock()
		t.idle = append(t.idle, p)
		t.mu.Unlock()
	}
	if over := g.first(); over != nil {
		// The limit's own words, not gonja's chain of wrappers (one per
		// nested call, thousands of times the same line).
		return "", over
	}
	if err != nil {
		return "", err
	}
	return out.b.String(), nil
}

// Render parses src and renders it with vars.
func Render(src string, vars map[string]any) (string, error) {
	t, err := Parse(src)
	if err != nil {
		return "", err
	}
	return Execute(t, vars)
}

// unlexableNumber is the line of a number followed by "." and a non-ASCII
// character within a tag, outside its strings ("{{ 0.é"), or 0: gonja's lexer steps back by the
// width of the character it peeked at rather than the dot, and then loops
// without end (or panics), whatever the rest of the template.
func unlexableNumber(src string) int {
	inTag := false
	line := 1
	for i := 0; i < len(src); i++ {
		switch {
		case src[i] == '\n':
			line++
		case strings.HasPrefix(src[i:], "{{") || strings.HasPrefix(src[i:], "{%"):
			inTag = true
		case strings.HasPrefix(src[i:], "}}") || strings.HasPrefix(src[i:], "%}"):
			inTag = false
		case inTag && (src[i] == '"' || src[i] == '\''):
			// A string literal is lexed apart: skip it.
			for q := src[i]; i+1 < len(src) && src[i+1] != q; i++ {
				if src[i+1] == '\\' {
					i++
				}
				if i+1 < len(src) && src[i+1] == '\n' {
					line++
				}
			}
			i++
		case inTag && src[i] == '.' && i > 0 && src[i-1] >= '0' && src[i-1] <= '9' && i+1 < len(src) && src[i+1] >= utf8.RuneSelf:
			return line
		}
	}
	return 0
}
