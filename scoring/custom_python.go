// Custom metrics given only by ADK's code_config.name: the Python function
// run in the user's Python, as adk eval would call it.

package scoring

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// pythonRunner calls the function; see custom_python.py.
//
//go:embed custom_python.py
var pythonRunner string

// DefaultPython is the interpreter custom metric functions run in unless
// Config.Python says otherwise: python3 on PATH.
const DefaultPython = "python3"

// runPythonMetric computes a custom metric that names only its Python
// function (code_config.name "module.path.function"): it runs in the
// user's Python (Config.Python, default python3 on PATH) with the
// configuration's folder and the working folder on sys.Path, called with
// ADK's four arguments — eval_metric, actual_invocations,
// expected_invocations, conversation_scenario — as ADK's pydantic objects
// when google.adk imports there, else as plain objects with the same
// attribute names (a missing attribute reads None; args, response and state
// stay dicts). A coroutine is awaited. Its result may be ADK's
// EvaluationResult or any object (or dict) with overall_score,
// overall_eval_status and per_invocation_results. A Python exception leaves
// the metric NOT_EVALUATED with the traceback's last line; what the
// function prints goes to stderr. Timeout, environment and process group
// are those of a custom metric command.
func runPythonMetric(ctx context.Context, cfg *Config, cm *CustomMetric, cr *Criterion, c *Case, m *MetricResult, env []string) {
	python := cfg.Python
	if python == "" {
		python = DefaultPython
	}
	what := fmt.Sprintf("custom metric %s (code_config.name %s, in %s)", cm.Name, cm.CodeConfig, python)
	if _, err := exec.LookPath(python); err != nil {
		m.Reason = fmt.Sprintf("%s: %s was not found: install Python or give its path with --python", what, python)
		return
	}
	input, err := customInput(cm, cr, c)
	if err != nil {
		m.Reason = "custom metric input: " + err.Error()
		return
	}
	dir, _ := filepath.Abs(cfg.Dir)
	argv := []string{python, "-c", pythonRunner, cm.CodeConfig, dir, "."}
	out, err := runCommand(ctx, cfg.Dir, argv, input, customTimeout(cfg, cm), env...)
	if err != nil {
		m.Reason = what + ": " + err.Error()
		return
	}
	var head struct {
		Error   string `json:"adkproxy_python_error"`
		Objects string `json:"adkproxy_objects"`
	}
	if err := json.Unmarshal(out, &head); err != nil {
		m.Reason = fmt.Sprintf("%s printed no valid result: %v", what, err)
		return
	}
	if head.Error != "" {
		m.Reason = what + " raised " + strings.TrimSpace(head.Error)
		return
	}
	if err := parseCustomOutput(out, c, m); err != nil {
		m.Reason = what + " returned no valid EvaluationResult: " + err.Error()
		m.Score, m.PerInvocation, m.Status, m.Details = nil, nil, 0, nil
		return
	}
	if m.Details == nil {
		m.Details = map[string]any{}
	}
	m.Details["python_objects"] = head.Objects
}
