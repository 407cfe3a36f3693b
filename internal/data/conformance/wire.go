// ADK's LlmRequest and LlmResponse as Gemini API bodies and back: the
// field mapping docs/conformance.md documents.

package conformance

import (
	"bytes"
	"reflect"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/textfmt"
	"google.golang.org/genai"
	"gopkg.in/yaml.v3"
)

// droppedConfig are GenerateContentConfig fields ADK's ReplayPlugin
// ignores and the Gemini API body does not carry: http_options are
// headers, labels are Vertex-only (ADK's agent-name label).
var droppedConfig = map[string]bool{"http_options": true, "labels": true}

// topLevelConfig are the config fields the wire carries beside contents
// rather than inside generationConfig (camelCase).
var topLevelConfig = []string{"systemInstruction", "tools", "toolConfig", "safetySettings", "cachedContent"}

var (
	contentType = reflect.TypeOf(genai.Content{})
	configType  = reflect.TypeOf(genai.GenerateContentConfig{})
)

// wireRequest converts an LlmRequest node into the model (for the path)
// and the Gemini API request body.
func (d doc) wireRequest(n *yaml.Node, what string) (model string, body []byte, err error) {
	// live_connect_config is a Live API setting: it never reaches this body.
	f, err := d.fields(n, what, "model", "contents", "config", "live_connect_config")
	if err != nil {
		return "", nil, err
	}
	if model, err = d.str(f["model"], what+".model"); err != nil {
		return "", nil, err
	}
	model = strings.TrimPrefix(model, "models/")
	out := mapping()
	if c := f["contents"]; c != nil {
		v, err := d.rename(c, reflect.SliceOf(contentType), toWire, what+".contents")
		if err != nil {
			return "", nil, err
		}
		add(out, "contents", v)
	}
	if c := f["config"]; c != nil && c.Tag != "!!null" {
		if err := d.wireConfig(c, out, what+".config"); err != nil {
			return "", nil, err
		}
	} else {
		add(out, "generationConfig", mapping()) // as Python genai sends it
	}
	var b bytes.Buffer
	if err := d.writeJSON(&b, out); err != nil {
		return "", nil, err
	}
	return model, b.Bytes(), nil
}

// wireConfig adds a GenerateContentConfig's fields to a request body:
// system_instruction (a plain string in ADK's dumps) as a user-role
// content, tools and the other request-level fields beside contents, the
// generation fields inside generationConfig.
func (d doc) wireConfig(n *yaml.Node, out *yaml.Node, what string) error {
	if n.Kind != yaml.MappingNode {
		return d.errorf(n, "%s: want a mapping", what)
	}
	kept := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: n.Line}
	var instruction *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch {
		case droppedConfig[k.Value]:
		case k.Value == "system_instruction" || k.Value == "systemInstruction":
			instruction = v
		default:
			kept.Content = append(kept.Content, k, v)
		}
	}
	if instruction != nil && instruction.Tag != "!!null" {
		si, err := d.systemInstruction(instruction, what+".system_instruction")
		if err != nil {
			return err
		}
		add(out, "systemInstruction", si)
	}
	renamed, err := d.rename(kept, configType, toWire, what)
	if err != nil {
		return err
	}
	generation := mapping()
	for _, top := range topLevelConfig {
		if v := lookup(renamed, top); v != nil {
			add(out, top, v)
		}
	}
	for i := 0; i+1 < len(renamed.Content); i += 2 {
		if !contains(topLevelConfig, renamed.Content[i].Value) {
			generation.Content = append(generation.Content, renamed.Content[i], renamed.Content[i+1])
		}
	}
	// Python genai, which ADK's RecordingsPlugin recorded through, always
	// sends generationConfig, {} when no field is set.
	add(out, "generationConfig", generation)
	return nil
}

// systemInstruction is the wire form of ADK's system_instruction: a string
// becomes {"parts":[{"text":...}],"role":"user"}, as the genai SDKs send it.
func (d doc) systemInstruction(n *yaml.Node, what string) (*yaml.Node, error) {
	if n.Kind == yaml.ScalarNode {
		part := mapping()
		add(part, "text", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: n.Value, Line: n.Line})
		si := mapping()
		add(si, "parts", &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: []*yaml.Node{part}})
		add(si, "role", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: genai.RoleUser})
		return si, nil
	}
	return d.rename(n, contentType, toWire, what)
}

// responseFields maps LlmResponse fields to where the wire carries them:
// in the first candidate, or beside the candidates.
var (
	candidateFields = map[string]string{"content": "content", "finish_reason": "finishReason",
		"finish_message": "finishMessage", "avg_logprobs": "avgLogprobs", "logprobs_result": "logprobsResult",
		"grounding_metadata": "groundingMetadata", "citation_metadata": "citationMetadata"}
	responseFields = map[string]string{"usage_metadata": "usageMetadata", "model_version": "modelVersion"}
	// streamFlags are set by ADK from the stream itself, not by the model.
	streamFlags = map[string]bool{"partial": true, "turn_complete": true}
)

var (
	candidateType = reflect.TypeOf(genai.Candidate{})
	responseType  = reflect.TypeOf(genai.GenerateContentResponse{})
)

// wireResponse converts an LlmResponse node into a GenerateContentResponse
// body: {"candidates":[{content, finishReason, ...}], usageMetadata, modelVersion}.
func (d doc) wireResponse(n *yaml.Node, what string) ([]byte, error) {
	if n.Kind != yaml.MappingNode {
		return nil, d.errorf(n, "%s: want a mapping", what)
	}
	cand, top := mapping(), mapping()
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key := k.Value
		if strings.ContainsAny(key, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
			key = textfmt.Snake(key)
		}
		switch {
		case streamFlags[key]:
		case candidateFields[key] != "":
			if err := d.addField(cand, candidateType, candidateFields[key], v, what+"."+k.Value); err != nil {
				return nil, err
			}
		case responseFields[key] != "":
			if err := d.addField(top, responseType, responseFields[key], v, what+"."+k.Value); err != nil {
				return nil, err
			}
		default:
			return nil, d.errorf(k, "%s: %q has no place in a Gemini API response (known: content, finish_reason, finish_message, avg_logprobs, logprobs_result, grounding_metadata, citation_metadata, usage_metadata, model_version; partial and turn_complete are dropped)", what, k.Value)
		}
	}
	out := mapping()
	if len(cand.Content) > 0 {
		add(out, "candidates", &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: []*yaml.Node{cand}})
	}
	out.Content = append(out.Content, top.Content...)
	var b bytes.Buffer
	if err := d.writeJSON(&b, out); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// addField adds v, renamed for the wire as field name of t, to m.
func (d doc) addField(m *yaml.Node, t reflect.Type, name string, v *yaml.Node, what string) error {
	f, _ := fieldOf(t, name, toADK)
	rv, err := d.rename(v, f.Type, toWire, what)
	if err != nil {
		return err
	}
	add(m, name, rv)
	return nil
}

func mapping() *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"} }

func add(m *yaml.Node, key string, v *yaml.Node) {
	m.Content = append(m.Content, keyNode(key, v.Line), v)
}

func lookup(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}
