// Package genaiconf reads a GenerateContentConfig as ADK's eval configs
// write one — snake_case, as its pydantic models dump them, or camelCase —
// into google.golang.org/genai's type. The judges' judge_model_options and
// the simulated user's model_configuration both come this way.
package genaiconf

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/adkproxy/adkproxy/internal/base/textfmt"
	"google.golang.org/genai"
)

// Parse reads v, a decoded JSON object, as a GenerateContentConfig. Keys
// may be snake_case or camelCase at any depth; a field genai's type does
// not have is an error naming it, never dropped.
func Parse(v any) (*genai.GenerateContentConfig, error) {
	if _, ok := v.(map[string]any); !ok {
		return nil, fmt.Errorf("want an object (a GenerateContentConfig)")
	}
	b, err := json.Marshal(textfmt.CamelKeys(v))
	if err != nil {
		return nil, err
	}
	var cfg genai.GenerateContentConfig
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		return nil, err
	}
	return &cfg, nil
}
