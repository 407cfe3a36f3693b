// The evaluation pipeline's run metrics that read more than token counts:
// tool success, grounding, sandbox tools, the tools' own HTTP time, and
// handoffs to agents by transfer or as tools.

package scoring

import (
	"slices"
	"sort"
	"strings"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/pyjson"
	"github.com/adkproxy/adkproxy/internal/data/recorded"
	"github.com/adkproxy/adkproxy/internal/wire"
)

// DefaultSandboxTools are the tools sandbox_usage counts unless its
// criterion names others ("tools"): ADK's artifact tools and the file tools
// of the MCP filesystem server and of common agent sandboxes.
var DefaultSandboxTools = []string{
	"load_artifacts", "save_artifact", "list_artifacts",
	"read_file", "read_text_file", "read_media_file", "read_multiple_files", "write_file", "edit_file",
	"delete_file", "move_file", "list_files", "list_directory", "list_directory_with_sizes", "directory_tree",
	"create_directory", "search_files", "get_file_info",
}

// toolSuccessRate: calls whose result has no error over all calls. A call
// takes its result in the same invocation by recorded.PairResults (its id,
// else the first unused result of its name); a call without a result is
// not a success.
func toolSuccessRate(_ *Config, _ *Criterion, c *Case, m *MetricResult) {
	var ok, calls, missing int
	var failed []string
	perInvocation(c, m, func(i int, inv *Invocation) *float64 {
		results := resultsOf(inv)
		n := 0
		for j, call := range inv.ToolCalls {
			r := results[j]
			switch {
			case r == nil:
				missing++
			case toolFailed(*r):
				failed = append(failed, call.Name)
			default:
				n++
			}
		}
		ok, calls = ok+n, calls+len(inv.ToolCalls)
		return ratio(int64(n), int64(len(inv.ToolCalls)))
	})
	m.Score = ratio(int64(ok), int64(calls))
	m.Details = map[string]any{"calls": calls, "succeeded": ok, "without_result": missing}
	if len(failed) > 0 {
		m.Details["failed_tools"] = failed
	}
	if m.Score == nil {
		m.Reason = "no tool calls recorded"
	}
}

// resultsOf is the result of each of inv's tool calls, nil for a call
// without one. Every call counts as made before every result: the
// invocation's results are one list (transfer responses ADK relays as
// text among them, see transferResults).
func resultsOf(inv *Invocation) []*cassettes.ToolResult {
	out := make([]*cassettes.ToolResult, len(inv.ToolCalls))
	pairs := recorded.PairResults([]recorded.Turn{{Calls: inv.ToolCalls}, {Results: inv.ToolResults}})
	for k, ref := range pairs[1] {
		if ref.Step == 0 {
			out[ref.Call] = &inv.ToolResults[k]
		}
	}
	return out
}

// groundingUtilization: grounding chunks cited by the answers' grounding
// supports, summed over model calls.
func groundingUtilization(_ *Config, _ *Criterion, c *Case, m *MetricResult) {
	var total Grounding
	perInvocation(c, m, func(_ int, inv *Invocation) *float64 {
		cited := 0
		for _, s := range inv.Steps {
			cited += s.Grounding.Cited
			total.Chunks += s.Grounding.Chunks
		}
		total.Cited += cited
		return Float(float64(cited))
	})
	m.Score = Float(float64(total.Cited))
	m.Details = map[string]any{"chunks": total.Chunks, "cited": total.Cited}
	if total.Chunks > 0 {
		m.Details["cited_share"] = float64(total.Cited) / float64(total.Chunks)
	}
}

// sandboxTools are the tools sandbox_usage counts under cr (nil: the
// configured criterion's, else the default list).
func sandboxTools(cfg *Config, cr *Criterion) []string {
	if cr != nil && cr.Tools != nil {
		return cr.Tools
	}
	if cfg != nil {
		for _, c := range cfg.Adkproxy.Criteria {
			if c.Metric == metricSandboxUsage && c.Tools != nil {
				return c.Tools
			}
		}
	}
	return DefaultSandboxTools
}

func sandboxUsage(cfg *Config, cr *Criterion, c *Case, m *MetricResult) {
	tools := sandboxTools(cfg, cr)
	counts := map[string]int{}
	total := 0
	perInvocation(c, m, func(_ int, inv *Invocation) *float64 {
		n := 0
		for _, call := range inv.ToolCalls {
			if slices.Contains(tools, call.Name) {
				counts[call.Name]++
				n++
			}
		}
		total += n
		return Float(float64(n))
	})
	m.Score = Float(float64(total))
	m.Details = map[string]any{"calls_per_tool": counts}
}

// toolLatency: the stat of the tools' HTTP requests' latencies, as the
// forward proxy recorded them.
func toolLatency(_ *Config, cr *Criterion, c *Case, m *MetricResult) {
	var all []float64
	hosts := map[string]int{}
	perInvocation(c, m, func(_ int, inv *Invocation) *float64 {
		var ms []float64
		for _, h := range inv.ToolHTTP {
			ms = append(ms, millis(h.Latency))
			hosts[h.Host]++
		}
		all = append(all, ms...)
		return statOf(cr.Stat, ms)
	})
	m.Score = statOf(cr.Stat, all)
	m.Details = statDetails(cr.Stat, all, "tool HTTP requests")
	m.Details["requests_per_host"] = hosts
	if m.Score == nil {
		m.Reason = "no tool HTTP traffic recorded: tool latency needs the tools' requests to go through adkproxy's forward proxy (HTTPS_PROXY, see docs/forward-proxy.md)"
	}
}

// agentHandoffs: transfer_to_agent calls plus calls of agents used as
// tools (a call whose name is an agent that answered model calls in the
// case or, in a session of its own, anywhere in the run).
func agentHandoffs(_ *Config, _ *Criterion, c *Case, m *MetricResult) {
	agents := map[string]bool{}
	if c.Session != nil {
		for _, a := range c.Session.RunAgents {
			agents[a] = true
		}
	}
	for _, inv := range c.Actual {
		for _, s := range inv.Steps {
			if s.Agent != "" {
				agents[s.Agent] = true
			}
		}
	}
	var transfers, agentTools int
	var targets []string
	perInvocation(c, m, func(_ int, inv *Invocation) *float64 {
		n := 0
		for _, call := range inv.ToolCalls {
			switch {
			case call.Name == "transfer_to_agent":
				transfers++
				if a, ok := call.Args["agent_name"].(string); ok {
					targets = append(targets, a)
				}
			case agents[call.Name]:
				agentTools++
				targets = append(targets, call.Name)
			default:
				continue
			}
			n++
		}
		return Float(float64(n))
	})
	m.Score = Float(float64(transfers + agentTools))
	m.Details = map[string]any{"transfers": transfers, "agent_tools": agentTools}
	if len(targets) > 0 {
		m.Details["to"] = targets
	}
}

// toolNames reads a list of tool names.
func toolNames(n pyjson.Value) ([]string, error) {
	list, err := n.List()
	if err != nil {
		return nil, err
	}
	out := []string{}
	for i := range list {
		s, err := n.Elem(list, i).Str()
		if err != nil {
			return nil, err
		}
		if strings.TrimSpace(s) == "" {
			return nil, n.Elem(list, i).Errorf("empty tool name")
		}
		out = append(out, s)
	}
	return out, nil
}

// groundingOf reads a model call's groundingMetadata (wire.GroundingOf).
func groundingOf(x *cassettes.Exchange) Grounding {
	g := wire.GroundingOf(x)
	return Grounding{Chunks: g.Chunks, Cited: g.Cited}
}

// toolNamesOf are the distinct tools c called, sorted.
func toolNamesOf(c *Case) []string {
	seen := map[string]bool{}
	for _, inv := range c.Actual {
		for _, call := range inv.ToolCalls {
			seen[call.Name] = true
		}
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
