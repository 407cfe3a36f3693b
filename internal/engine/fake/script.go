// The script: turns of an expected user text and the model's answers, read
// from YAML with every mistake named by line.

package fake

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/userfile"
	"github.com/adkproxy/adkproxy/internal/data/fault"
	"gopkg.in/yaml.v3"
)

// Script is what the fake answers, turn by turn.
type Script struct {
	// Name is where the script came from, for messages.
	Name  string
	Turns []Turn
	// Answers, when the script has an "answers:" block, reshapes every
	// answer (reshape.go).
	Answers *Reshape
}

// Turn is one user turn: the user text it expects (checked when set) and
// one item per model call the turn makes, in order.
type Turn struct {
	User  *string
	Model []Item
	Line  int
}

// Item answers one model call: with parts (text, function calls), an error
// or a fault.
type Item struct {
	Parts []Part
	Error *Error
	Fault *fault.What
	// Spec is the fault as written.
	Spec string
	Line int
}

// Part is one part of an answer: Text, or a function call Call(Args).
type Part struct {
	Text string
	Call string
	Args map[string]any
}

// Error is an error answer in Gemini's shape.
type Error struct {
	Code    int
	Status  string
	Message string
}

// rawItem is an item as written: one of text, call (with args), parts,
// error or fault.
type rawItem struct {
	Text  *string        `yaml:"text"`
	Call  string         `yaml:"call"`
	Args  map[string]any `yaml:"args"`
	Parts []yaml.Node    `yaml:"parts"`
	Error *struct {
		Code    int    `yaml:"code"`
		Status  string `yaml:"status"`
		Message string `yaml:"message"`
	} `yaml:"error"`
	Fault string `yaml:"fault"`
}

type rawTurn struct {
	User  *string     `yaml:"user"`
	Model []yaml.Node `yaml:"model"`
}

const itemHelp = `an item is one of "text: ...", "call: NAME" (with "args: {...}"), "parts: [...]" (several of those), "error: {code: 503, message: ...}" or "fault: WHAT" (e.g. fault: 429)`

// ReadScript reads a script file.
func ReadScript(path string) (*Script, error) {
	data, err := userfile.Read(path)
	if err != nil {
		return nil, fmt.Errorf("script: %w", err)
	}
	return ParseScript(path, data)
}

// ParseScript parses a script; name is used in errors.
func ParseScript(name string, data []byte) (*Script, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("%s: not YAML: %v", name, err)
	}
	if len(root.Content) == 0 {
		return nil, fmt.Errorf("%s: empty; a script is a \"turns:\" list, each turn with a \"model:\" list of items", name)
	}
	var doc struct {
		Turns   []yaml.Node `yaml:"turns"`
		Answers yaml.Node   `yaml:"answers"`
	}
	if err := decodeStrict(root.Content[0], &doc, "turns", "answers"); err != nil {
		return nil, fmt.Errorf("%s: %v (a script is a \"turns:\" list, each with \"user:\" and \"model:\")", name, err)
	}
	if len(doc.Turns) == 0 {
		return nil, fmt.Errorf("%s: no turns; a script is a \"turns:\" list, each turn with a \"model:\" list of items", name)
	}
	s := &Script{Name: name}
	var err error
	if s.Answers, err = parseReshape(name, &doc.Answers); err != nil {
		return nil, err
	}
	for i, n := range doc.Turns {
		var rt rawTurn
		if err := decodeStrict(&n, &rt, "user", "model"); err != nil {
			return nil, fmt.Errorf("%s:%d: turns[%d]: %v (a turn has \"user:\" and \"model:\")", name, n.Line, i, err)
		}
		if len(rt.Model) == 0 {
			return nil, fmt.Errorf("%s:%d: turns[%d] has no \"model:\" items; %s", name, n.Line, i, itemHelp)
		}
		turn := Turn{User: rt.User, Line: n.Line}
		for j, in := range rt.Model {
			item, err := parseItem(&in)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: turns[%d].model[%d]: %v", name, in.Line, i, j, err)
			}
			turn.Model = append(turn.Model, item)
		}
		s.Turns = append(s.Turns, turn)
	}
	return s, nil
}

// decodeStrict decodes n into v, refusing keys v does not have: yaml's
// KnownFields works only on a whole document, and re-encoding a node
// would lose its line numbers.
func decodeStrict(n *yaml.Node, v any, keys ...string) error {
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i]; !slices.Contains(keys, k.Value) {
				return fmt.Errorf("line %d: unknown key %q (it may have %s)", k.Line, k.Value, strings.Join(keys, ", "))
			}
		}
	}
	if err := n.Decode(v); err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "yaml: unmarshal errors:\n  "))
	}
	return nil
}

func parseItem(n *yaml.Node) (Item, error) {
	var raw rawItem
	if err := decodeStrict(n, &raw, "text", "call", "args", "parts", "error", "fault"); err != nil {
		return Item{}, fmt.Errorf("%v; %s", err, itemHelp)
	}
	item := Item{Line: n.Line}
	kinds := 0
	for _, set := range []bool{raw.Text != nil || raw.Call != "", raw.Parts != nil, raw.Error != nil, raw.Fault != ""} {
		if set {
			kinds++
		}
	}
	if kinds != 1 {
		return Item{}, fmt.Errorf("it has %d of text/call, parts, error and fault; %s", kinds, itemHelp)
	}
	switch {
	case raw.Error != nil:
		e := raw.Error
		if e.Code < 400 || e.Code > 599 {
			return Item{}, fmt.Errorf("error code %d is not an HTTP error status (400-599)", e.Code)
		}
		if e.Status == "" {
			e.Status = fault.StatusName(e.Code)
		}
		if e.Message == "" {
			e.Message = "adkproxy fake: scripted error"
		}
		item.Error = &Error{Code: e.Code, Status: e.Status, Message: e.Message}
	case raw.Fault != "":
		what, err := fault.ParseWhat(raw.Fault)
		if err != nil {
			return Item{}, fmt.Errorf("fault %q: %v; write %s", raw.Fault, err, fault.Grammar)
		}
		item.Fault, item.Spec = &what, raw.Fault
	case raw.Parts != nil:
		if len(raw.Parts) == 0 {
			return Item{}, fmt.Errorf("parts is empty")
		}
		for k, pn := range raw.Parts {
			var p rawItem
			if err := decodeStrict(&pn, &p, "text", "call", "args"); err != nil {
				return Item{}, fmt.Errorf("parts[%d]: %v; a part is \"text: ...\" or \"call: NAME\" with \"args:\"", k, err)
			}
			part, err := parsePart(p)
			if err != nil {
				return Item{}, fmt.Errorf("parts[%d]: %v", k, err)
			}
			item.Parts = append(item.Parts, part)
		}
	default:
		part, err := parsePart(raw)
		if err != nil {
			return Item{}, err
		}
		item.Parts = []Part{part}
	}
	return item, nil
}

func parsePart(raw rawItem) (Part, error) {
	switch {
	case raw.Parts != nil || raw.Error != nil || raw.Fault != "":
		return Part{}, fmt.Errorf("a part is \"text: ...\" or \"call: NAME\" with \"args:\"")
	case raw.Text != nil && raw.Call != "":
		return Part{}, fmt.Errorf("it has both text and call; make them two parts")
	case raw.Call != "":
		args := raw.Args
		if args == nil {
			args = map[string]any{}
		}
		if _, err := json.Marshal(args); err != nil {
			return Part{}, fmt.Errorf("args of %s cannot be JSON (keys must be strings): %v", raw.Call, err)
		}
		return Part{Call: raw.Call, Args: args}, nil
	case raw.Args != nil:
		return Part{}, fmt.Errorf("args without call")
	case raw.Text != nil:
		return Part{Text: *raw.Text}, nil
	}
	return Part{}, fmt.Errorf("a part is \"text: ...\" or \"call: NAME\" with \"args:\"")
}
