// The user simulator's settings: user_simulator_config of an eval config.

package scenarios

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
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
	data, err := os.ReadFile(path)
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
	x, err := decode(name, data)
	if err != nil {
		return cfg, err
	}
	o, err := x.object()
	if err != nil {
		return cfg, err
	}
	uv, ok := x.pyField(o, "user_simulator_config")
	if !ok {
		return cfg, nil
	}
	u, err := uv.object()
	if err != nil {
		return cfg, err
	}
	if v, ok := uv.pyField(u, "type"); ok {
		if cfg.Type, err = v.str(); err != nil {
			return cfg, err
		}
		if cfg.Type != TypeLLMBacked && cfg.Type != TypeLLMAudio {
			return cfg, v.errorf("%q is not %q or %q", cfg.Type, TypeLLMBacked, TypeLLMAudio)
		}
	}
	if v, ok := uv.pyField(u, "model"); ok {
		if cfg.Model, err = v.str(); err != nil {
			return cfg, err
		}
		if cfg.Model == "" {
			return cfg, v.errorf("empty: give a model name such as %q", DefaultModel)
		}
	}
	if v, ok := uv.pyField(u, "model_configuration"); ok {
		if _, err := v.object(); err != nil {
			return cfg, v.errorf("want a GenerateContentConfig object, got %s", kind(v.v))
		}
		cfg.ModelConfiguration, _ = json.Marshal(v.v)
	}
	if v, ok := uv.pyField(u, "custom_instructions"); ok {
		if cfg.CustomInstructions, err = v.str(); err != nil {
			return cfg, err
		}
	}
	if v, ok := uv.pyField(u, "max_allowed_invocations"); ok {
		n, isNum := v.v.(json.Number)
		f, err := n.Float64()
		if !isNum || err != nil || f != math.Trunc(f) || math.Abs(f) > math.MaxInt32 {
			return cfg, v.errorf("want a whole number (negative: no limit), got %s", kind(v.v))
		}
		cfg.MaxAllowedInvocations = int(f)
	}
	if v, ok := uv.pyField(u, "include_function_calls"); ok {
		b, isBool := v.v.(bool)
		if !isBool {
			return cfg, v.errorf("want true or false, got %s", kind(v.v))
		}
		cfg.IncludeFunctionCalls = b
	}
	return cfg, nil
}
