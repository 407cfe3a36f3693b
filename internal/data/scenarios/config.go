// The user simulator's settings: user_simulator_config of an eval config.

package scenarios

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/adkproxy/adkproxy/internal/base/pyjson"
	"github.com/adkproxy/adkproxy/internal/base/userfile"
)

// The simulator types of user_simulator_config.type.
const (
	TypeLLMBacked = "llm_backed"
	TypeLLMAudio  = "llm_audio"
)

// Defaults of ADK's LlmBackedUserSimulatorConfig.
const (
	DefaultModel                 = "gemini-2.5-flash"
	DefaultMaxAllowedInvocations = 20
)

// DefaultModelConfiguration is ADK's default model_configuration:
// thoughts included, thinking budget 10240.
var DefaultModelConfiguration = json.RawMessage(`{"thinking_config":{"include_thoughts":true,"thinking_budget":10240}}`)

// SimulatorConfig is ADK's user_simulator_config.
type SimulatorConfig struct {
	// Type is "llm_backed" (the default) or "llm_audio".
	Type  string
	Model string
	// ModelConfiguration is a google-genai GenerateContentConfig as
	// written (snake_case or camelCase keys); giving one replaces
	// DefaultModelConfiguration wholesale.
	ModelConfiguration json.RawMessage
	// CustomInstructions is a Jinja template replacing the built-in
	// prompt; "" for none. Checking that it references stop_signal,
	// conversation_plan and conversation_history is the simulator's job
	// (it holds the Jinja engine).
	CustomInstructions string
	// File is the eval config file the configuration was read from, for
	// errors ("" for the default).
	File string
	// MaxAllowedInvocations counts user turns, the starting prompt
	// included; negative means no limit, 0 no turn at all.
	MaxAllowedInvocations int
	// IncludeFunctionCalls shows tool calls and results in the history
	// the simulated user reads.
	IncludeFunctionCalls bool
}

// DefaultSimulatorConfig is ADK's configuration when none is given.
func DefaultSimulatorConfig() SimulatorConfig {
	return SimulatorConfig{Type: TypeLLMBacked, Model: DefaultModel, ModelConfiguration: DefaultModelConfiguration,
		MaxAllowedInvocations: DefaultMaxAllowedInvocations}
}

// LoadSimulatorConfig reads user_simulator_config from an eval config
// file (DefaultSimulatorConfig when the file has none). The rest of the
// file is package scoring's.
func LoadSimulatorConfig(path string) (SimulatorConfig, error) {
	data, err := userfile.Read(path)
	if err != nil {
		return SimulatorConfig{}, fmt.Errorf("eval config: %w", err)
	}
	return ParseSimulatorConfig(path, data)
}

// ParseSimulatorConfig reads user_simulator_config (or userSimulatorConfig)
// from an eval config's content; every key is accepted in snake_case or
// camelCase, unknown keys are ignored (as ADK's config models allow them).
func ParseSimulatorConfig(name string, data []byte) (SimulatorConfig, error) {
	cfg := DefaultSimulatorConfig()
	cfg.File = name
	x, err := pyjson.Decode(name, data)
	if err != nil {
		return cfg, err
	}
	o, err := x.Object()
	if err != nil {
		return cfg, err
	}
	uv, ok := x.PyField(o, "user_simulator_config")
	if !ok || uv.V == nil {
		return cfg, nil
	}
	u, err := uv.Object()
	if err != nil {
		return cfg, err
	}
	if v, ok := uv.PyField(u, "type"); ok && v.V != nil {
		if cfg.Type, err = v.Str(); err != nil {
			return cfg, err
		}
		if cfg.Type != TypeLLMBacked && cfg.Type != TypeLLMAudio {
			return cfg, v.Errorf("%q is not %q or %q", cfg.Type, TypeLLMBacked, TypeLLMAudio)
		}
	}
	if v, ok := uv.PyField(u, "model"); ok && v.V != nil {
		if cfg.Model, err = v.Str(); err != nil {
			return cfg, err
		}
		if cfg.Model == "" {
			return cfg, v.Errorf("empty: give a model name such as %q", DefaultModel)
		}
	}
	if v, ok := uv.PyField(u, "model_configuration"); ok && v.V != nil {
		if _, err := v.Object(); err != nil {
			return cfg, v.Errorf("want a GenerateContentConfig object, got %s", pyjson.Describe(v.V))
		}
		cfg.ModelConfiguration, _ = json.Marshal(pyjson.Plain(v.V))
	}
	if v, ok := uv.PyField(u, "custom_instructions"); ok && v.V != nil {
		if cfg.CustomInstructions, err = v.Str(); err != nil {
			return cfg, err
		}
	}
	if v, ok := uv.PyField(u, "max_allowed_invocations"); ok && v.V != nil {
		n, isNum := v.V.(json.Number)
		f, err := n.Float64()
		if !isNum || err != nil || f != math.Trunc(f) || math.Abs(f) > math.MaxInt32 {
			return cfg, v.Errorf("want a whole number (negative: no limit), got %s", pyjson.Describe(v.V))
		}
		cfg.MaxAllowedInvocations = int(f)
	}
	if v, ok := uv.PyField(u, "include_function_calls"); ok && v.V != nil {
		b, isBool := v.V.(bool)
		if !isBool {
			return cfg, v.Errorf("want true or false, got %s", pyjson.Describe(v.V))
		}
		cfg.IncludeFunctionCalls = b
	}
	return cfg, nil
}
