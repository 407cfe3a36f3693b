// The fakes file: reading and checking it.

package toolfake

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Fake is one entry of the file.
type Fake struct {
	// Tool names an MCP tool (tools/call) or an A2A agent; Host an HTTP
	// tool host, with an optional path ("api.example.com/v1/current").
	// Exactly one is set.
	Tool string `yaml:"tool"`
	Host string `yaml:"host"`
	// Args are the arguments that must match (others are not looked at):
	// each a value compared as JSON, or a matcher as the scoring config's
	// arg_matchers write them: {regex: PATTERN} (RE2, found anywhere in a
	// string) or "ignore" (present or not). For an A2A agent the argument is "text", the
	// message's text; for an HTTP host, the JSON body's fields or the
	// query's parameters.
	Args map[string]any `yaml:"args"`
	// Result is what the tool answers; Error makes it fail instead;
	// Status is an HTTP host's status (default 200, or 500 with Error).
	Result any    `yaml:"result"`
	Error  string `yaml:"error"`
	Status int    `yaml:"status"`
	// Delay holds the answer back ("2s"); at most MaxDelay.
	Delay string `yaml:"delay"`
	// Times is how many calls it answers: default 1, 0 means every call
	// from its turn on.
	Times *int `yaml:"times"`

	line  int
	delay time.Duration
	args  map[string]argMatcher
}

var knownFields = map[string]bool{"tool": true, "host": true, "args": true, "result": true, "error": true, "status": true, "delay": true, "times": true}

// MaxDelay bounds a fake's delay.
const MaxDelay = 5 * time.Minute

type argMatcher struct {
	ignore  bool
	pattern *regexp.Regexp
	value   any // normalised through JSON
}

// Where names the fake in messages: FILE:LINE and what it fakes.
func (f *Fake) Where(file string) string {
	what := f.Tool
	if what == "" {
		what = f.Host
	}
	return fmt.Sprintf("%s:%d (%s)", file, f.line, what)
}

// Load reads a fakes file:
//
//	fakes:
//	  - tool: get_weather
//	    args: {city: Paris}
//	    result: {city: Paris, temp_c: 21}
func Load(path string) (*Set, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tool fakes: %v", err)
	}
	var file struct {
		Fakes []yaml.Node `yaml:"fakes"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&file); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("tool fakes %s: %v (the file is {fakes: [{tool: NAME, args: {...}, result: ...}, ...]})", path, err)
	}
	s := &Set{file: path}
	for i := range file.Fakes {
		n := &file.Fakes[i]
		var f Fake
		if n.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("%s:%d: fakes[%d] is not a mapping such as {tool: NAME, result: ...}", path, n.Line, i)
		}
		for k := 0; k+1 < len(n.Content); k += 2 {
			if key := n.Content[k].Value; !knownFields[key] {
				return nil, fmt.Errorf("%s:%d: fakes[%d]: no field %q (a fake has tool or host, args, result or error, status, delay, times)", path, n.Content[k].Line, i, key)
			}
		}
		if err := n.Decode(&f); err != nil {
			return nil, fmt.Errorf("%s:%d: fakes[%d]: %v", path, n.Line, i, err)
		}
		f.line = n.Line
		if err := f.check(); err != nil {
			return nil, fmt.Errorf("%s:%d: fakes[%d]: %v", path, n.Line, i, err)
		}
		s.fakes = append(s.fakes, &entry{Fake: f})
	}
	return s, nil
}

func (f *Fake) check() error {
	if (f.Tool == "") == (f.Host == "") {
		return errors.New("give exactly one of tool (an MCP tool or A2A agent) and host (an HTTP tool host)")
	}
	if f.Result != nil && f.Error != "" {
		return errors.New("give result or error, not both")
	}
	if f.Status != 0 && (f.Status < 100 || f.Status > 599 || f.Host == "") {
		return errors.New("status is an HTTP host's, from 100 to 599")
	}
	if f.Times != nil && *f.Times < 0 {
		return errors.New("times is 0 (every call) or more")
	}
	if f.Delay != "" {
		d, err := time.ParseDuration(f.Delay)
		if err != nil || d < 0 || d > MaxDelay {
			return fmt.Errorf("delay %q is not a duration from 0 to %v (such as 2s)", f.Delay, MaxDelay)
		}
		f.delay = d
	}
	f.Host = strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(f.Host, "https://"), "http://"), "/"))
	f.args = map[string]argMatcher{}
	for k, v := range f.Args {
		m, err := matcherOf(v)
		if err != nil {
			return fmt.Errorf("args.%s: %v", k, err)
		}
		f.args[k] = m
	}
	return nil
}

func matcherOf(v any) (argMatcher, error) {
	if s, ok := v.(string); ok && s == "ignore" {
		return argMatcher{ignore: true}, nil
	}
	if m, ok := v.(map[string]any); ok && len(m) == 1 {
		if p, ok := m["regex"]; ok {
			ps, ok := p.(string)
			if !ok {
				return argMatcher{}, errors.New("regex wants a string pattern")
			}
			re, err := regexp.Compile(ps)
			if err != nil {
				return argMatcher{}, fmt.Errorf("regex: %v", err)
			}
			return argMatcher{pattern: re}, nil
		}
	}
	return argMatcher{value: normal(v)}, nil
}

// normal is v as JSON would decode it (YAML's ints and maps become
// float64 and map[string]any), so values compare alike.
func normal(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	json.Unmarshal(b, &out)
	return out
}

func (m argMatcher) match(v any, present bool) bool {
	switch {
	case m.ignore:
		return true
	case !present:
		return false
	case m.pattern != nil:
		s, ok := v.(string)
		return ok && m.pattern.MatchString(s)
	}
	return jsonEqual(v, m.value)
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}
