// The fakes file: reading and checking it.

package toolfake

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/adkproxy/adkproxy/internal/base/userfile"
	"github.com/adkproxy/adkproxy/matcher"
	"github.com/adkproxy/adkproxy/scoring"
)

// Fake is one entry of the file.
type Fake struct {
	// Tool names an MCP tool (tools/call) or an A2A agent; Host an HTTP
	// tool host, with an optional path ("api.example.com/v1/current").
	// Exactly one is set.
	Tool string `yaml:"tool"`
	Host string `yaml:"host"`
	// Cassette, when set, limits the fake to the calls of that cassette
	// (an eval case's, or a test's); a file in a folder of fakes sets it
	// to the file's name.
	Cassette string `yaml:"cassette"`
	// Args are the arguments that must match (others are not looked at):
	// each a value compared as JSON, or inline one of the scoring
	// config's arg_matchers {regex: PATTERN} (RE2, found anywhere in a
	// string) or "ignore" (present or not). For an A2A agent the argument
	// is "text", the message's text; for an HTTP host, the JSON body's
	// fields or the query's parameters.
	Args map[string]any `yaml:"args"`
	// ArgMatchers say how an argument is compared with its value in Args,
	// written as the scoring config's arg_matchers for one tool (exact,
	// ignore, subset, superset, {regex: P}, {tolerance: X}; "*" for every
	// argument) and read by the same parser, so they mean the same.
	ArgMatchers map[string]any `yaml:"arg_matchers"`
	// Ignore are fields left out of the arguments on both sides before
	// they are compared, in the --ignore syntax (filters.page,
	// items[*].id), read by the same parser as --ignore.
	Ignore []string `yaml:"ignore"`
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

	line     int
	file     string
	delay    time.Duration
	args     map[string]any      // Args through JSON, the Ignore paths left out
	matchers scoring.ArgMatchers // Args' inline matchers and ArgMatchers, under the name "fake"
	ignore   []matcher.Path      // Ignore, parsed
	names    map[string]bool     // every argument named in Args or ArgMatchers
}

var knownFields = map[string]bool{"tool": true, "host": true, "cassette": true, "args": true, "arg_matchers": true, "ignore": true,
	"result": true, "error": true, "status": true, "delay": true, "times": true}

// MaxDelay bounds a fake's delay.
const MaxDelay = 5 * time.Minute

// Where names the fake in messages: FILE:LINE and what it fakes.
func (f *Fake) Where() string {
	what := f.Tool
	if what == "" {
		what = f.Host
	}
	return fmt.Sprintf("%s:%d (%s)", f.file, f.line, what)
}

// Load reads a fakes file, or a folder of them, one per cassette: the
// fakes of NAME.yaml answer only the calls of cassette NAME.
//
//	fakes:
//	  - tool: get_weather
//	    args: {city: Paris}
//	    result: {city: Paris, temp_c: 21}
func Load(path string) (*Set, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return loadFolder(path)
	}
	s := &Set{}
	return s, s.loadFile(path, "")
}

// loadFolder reads every NAME.yaml of dir as the fakes of cassette NAME.
func loadFolder(dir string) (*Set, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, fmt.Errorf("tool fakes: %v", err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("tool fakes %s: the folder holds no NAME.yaml (the fakes of cassette NAME)", dir)
	}
	s := &Set{}
	for _, f := range files {
		if err := s.loadFile(f, strings.TrimSuffix(filepath.Base(f), ".yaml")); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// loadFile adds path's fakes to s, each limited to cassette when it is
// given.
func (s *Set) loadFile(path, cassette string) error {
	data, err := userfile.Read(path)
	if err != nil {
		return fmt.Errorf("tool fakes: %w", err)
	}
	var file struct {
		Fakes []yaml.Node `yaml:"fakes"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&file); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("tool fakes %s: %v (the file is {fakes: [{tool: NAME, args: {...}, result: ...}, ...]})", path, err)
	}
	for i := range file.Fakes {
		n := &file.Fakes[i]
		var f Fake
		if n.Kind != yaml.MappingNode {
			return fmt.Errorf("%s:%d: fakes[%d] is not a mapping such as {tool: NAME, result: ...}", path, n.Line, i)
		}
		for k := 0; k+1 < len(n.Content); k += 2 {
			if key := n.Content[k].Value; !knownFields[key] {
				return fmt.Errorf("%s:%d: fakes[%d]: no field %q (a fake has tool or host, cassette, args, arg_matchers, ignore, result or error, status, delay, times)", path, n.Content[k].Line, i, key)
			}
		}
		if err := n.Decode(&f); err != nil {
			return fmt.Errorf("%s:%d: fakes[%d]: %v", path, n.Line, i, err)
		}
		f.line, f.file = n.Line, path
		if cassette != "" && f.Cassette != "" && f.Cassette != cassette {
			return fmt.Errorf("%s:%d: fakes[%d]: cassette %q: the fakes in %s are cassette %q's", path, n.Line, i, f.Cassette, filepath.Base(path), cassette)
		}
		if f.Cassette == "" {
			f.Cassette = cassette
		}
		if err := f.check(); err != nil {
			return fmt.Errorf("%s:%d: fakes[%d]: %v", path, n.Line, i, err)
		}
		s.fakes = append(s.fakes, &entry{Fake: f})
	}
	return nil
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
	for _, p := range f.Ignore {
		path, err := matcher.ParsePath(p)
		if err != nil {
			return fmt.Errorf("ignore %q: %v", p, err)
		}
		f.ignore = append(f.ignore, path)
	}
	return f.readArgs()
}

// readArgs splits Args into values and inline matchers and reads every
// matcher, inline or in ArgMatchers, with the scoring config's parser.
func (f *Fake) readArgs() error {
	values := map[string]any{}
	matchers := map[string]any{}
	f.names = map[string]bool{}
	for k, v := range f.Args {
		f.names[k] = true
		if inlineMatcher(v) {
			matchers[k] = v
		} else {
			values[k] = v
		}
	}
	for k, v := range f.ArgMatchers {
		if _, inline := matchers[k]; inline {
			return fmt.Errorf("args.%s is a matcher already; give its value in args and its matcher in arg_matchers", k)
		}
		if k != "*" {
			f.names[k] = true
		}
		matchers[k] = v
	}
	f.args, _ = normal(values).(map[string]any)
	for _, p := range f.ignore {
		p.Remove(f.args)
	}
	f.matchers = scoring.ArgMatchers{"fake": {}}
	for k, v := range matchers {
		field := "arg_matchers."
		if _, inline := f.Args[k]; inline {
			field = "args."
		}
		m, err := argMatcher(v)
		if err != nil {
			return fmt.Errorf("%s%s: %v", field, k, err)
		}
		f.matchers["fake"][k] = m
	}
	return nil
}

// argMatcher reads one matcher with the scoring config's parser.
func argMatcher(v any) (scoring.ArgMatcher, error) {
	doc, err := json.Marshal(map[string]any{"criteria": map[string]any{"tool_trajectory_avg_score": 1},
		"adkproxy": map[string]any{"arg_matchers": map[string]any{"fake": map[string]any{"arg": normal(v)}}}})
	if err != nil {
		return scoring.ArgMatcher{}, err
	}
	cfg, err := scoring.ParseConfig("", doc)
	if err != nil {
		msg := err.Error()
		if _, after, ok := strings.Cut(msg, "adkproxy.arg_matchers.fake.arg"); ok {
			msg = strings.TrimLeft(after, ".: ")
		}
		return scoring.ArgMatcher{}, errors.New(msg)
	}
	return cfg.Adkproxy.ArgMatchers["fake"]["arg"], nil
}

// inlineMatcher: an argument's value in Args that is a matcher rather
// than a value: "ignore" or {regex: PATTERN}.
func inlineMatcher(v any) bool {
	if s, ok := v.(string); ok {
		return s == "ignore"
	}
	m, ok := v.(map[string]any)
	_, re := m["regex"]
	return ok && len(m) == 1 && re
}

// argsMatch says whether a call's arguments match: each argument named,
// under its matcher (scoring's, so they mean what they mean there), else
// equal as JSON; the Ignore paths left out of both sides.
func (f *Fake) argsMatch(args map[string]any) bool {
	args, _ = normal(args).(map[string]any)
	for _, p := range f.ignore {
		p.Remove(args)
	}
	for k := range f.names {
		got, has := args[k]
		want, wanted := f.args[k]
		if configured, ok := f.matchers.Configured("fake", k, got, has, want, wanted); configured {
			if !ok {
				return false
			}
			continue
		}
		if has != wanted || has && !jsonEqual(got, want) {
			return false
		}
	}
	return true
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

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}
