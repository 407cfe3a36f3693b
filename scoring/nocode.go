// The trust boundary of a config: its custom metrics are code (see
// docs/guarantees.md); NoCode scores untrusted input without running them.

package scoring

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// noCodeReason is a refused custom metric's reason.
const noCodeReason = "not run: --no-code refuses custom metrics (their command or Python function is code from the config)"

// codeMetrics describe the custom metrics of cfg, each the code it would
// run ("name (command [\"sh\",\"-c\",…])" or "name (code_config.name
// pkg.fn)"), sorted by name; nil when it runs none.
func (cfg *Config) codeMetrics() []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(cfg.CustomMetrics)) {
		cm := cfg.CustomMetrics[name]
		if len(cm.Command) > 0 {
			out = append(out, fmt.Sprintf("%s (command %s)", name, argvString(cm.Command)))
		} else {
			out = append(out, fmt.Sprintf("%s (code_config.name %s, a Python import)", name, cm.CodeConfig))
		}
	}
	return out
}

// RefuseCode is the error of --no-code for a config that would run code:
// it names the file and each custom metric; nil when cfg runs none.
func (cfg *Config) RefuseCode() error {
	metrics := cfg.codeMetrics()
	if len(metrics) == 0 {
		return nil
	}
	return fmt.Errorf("%s: --no-code: refused %d custom metric(s), which run code from the config: %s "+
		"(drop --no-code only for a config you trust; or remove them from custom_metrics and criteria)",
		cfg.File, len(metrics), strings.Join(metrics, "; "))
}
