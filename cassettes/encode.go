// Writing a cassette: Marshal turns exchanges into the YAML tree of sessions,
// invocations and steps, refusing anything that would not read back exactly.

package cassettes

import (
	"bytes"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// Helpers to build yaml.Node trees.

func mapping(kv ...any) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for i := 0; i+1 < len(kv); i += 2 {
		n.Content = append(n.Content, strNode(kv[i].(string)), kv[i+1].(*yaml.Node))
	}
	return n
}

func strNode(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

func intNode(i int) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(i)}
}

// floatNode writes f in plain decimal; a whole number is tagged !!int so
// the encoder does not spell it "!!float 3".
func floatNode(f float64) *yaml.Node {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	tag := "!!float"
	if !strings.ContainsAny(s, ".eEIN") {
		tag = "!!int"
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: s}
}

// Marshal renders a cassette as YAML. Every value is stored so that it reads
// back exactly: bodies and header values that YAML cannot carry as text are
// stored as base64, and text fields (name, method, path, query, header names)
// that are not valid UTF-8 are refused with an error rather than mangled.
func Marshal(c *Cassette) ([]byte, error) {
	if c == nil {
		return nil, fmt.Errorf("cannot marshal a nil cassette")
	}
	sessions, other, live, err := structureNodes(c.Exchanges, c.Trajectories)
	if err != nil {
		return nil, err
	}
	name, err := textNode(c.Name, "the cassette name")
	if err != nil {
		return nil, err
	}
	doc := mapping("version", intNode(formatVersion), "name", name)
	prov, err := provenanceNode(c.Provenance)
	if err != nil {
		return nil, err
	}
	if prov != nil {
		doc.Content = append(doc.Content, strNode("provenance"), prov)
	}
	if len(sessions.Content) > 0 {
		doc.Content = append(doc.Content, strNode("sessions"), sessions)
	}
	if len(other.Content) > 0 {
		doc.Content = append(doc.Content, strNode("other"), other)
	}
	if len(live.Content) > 0 {
		doc.Content = append(doc.Content, strNode("live"), live)
	}
	var buf bytes.Buffer
	buf.WriteString("# adkproxy cassette: recorded Gemini API traffic. Bodies are replayed byte for byte;\n" +
		"# each step's trajectory is derived from them and only there for reading.\n")
	if err := encodeYAML(&buf, doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// structureNodes groups placed exchanges into sessions, invocations and
// steps (in the order they appear in the slice) and lists the rest, Live
// connections apart.
func structureNodes(exchanges []*Exchange, trajectoryOf func(*Exchange) Trajectory) (sessions, other, live *yaml.Node, err error) {
	sessions = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	other = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	live = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	type invKey struct{ session, invocation int }
	type numbered struct {
		id   int
		node *yaml.Node
	}
	steps := map[invKey]*yaml.Node{}
	invocations := map[int][]numbered{}
	var sessionIDs []int
	var tools toolSteps
	for i, x := range exchanges {
		if x != nil && x.IsLive() {
			n, err := liveNode(x)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("live connection %d: %w", len(live.Content)+1, err)
			}
			live.Content = append(live.Content, n)
			continue
		}
		n, err := exchangeNode(x)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("interaction %d: %w", i+1, err)
		}
		p := x.Place
		if p != nil && x.IsTool() {
			tools.file(x, n)
			continue
		}
		if p == nil {
			other.Content = append(other.Content, n)
			continue
		}
		if p.Session < 1 || p.Invocation < 1 || p.Step < 0 {
			return nil, nil, nil, fmt.Errorf("interaction %d: place %+v needs a session and invocation from 1 and a step from 0", i+1, *p)
		}
		if _, seen := invocations[p.Session]; !seen {
			invocations[p.Session] = nil
			sessionIDs = append(sessionIDs, p.Session)
		}
		k := invKey{p.Session, p.Invocation}
		if steps[k] == nil {
			user, err := textNode(p.User, "the user text")
			if err != nil {
				return nil, nil, nil, fmt.Errorf("interaction %d: %w", i+1, err)
			}
			steps[k] = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
			inv := mapping("id", intNode(p.Invocation), "user", user)
			if p.Tag != "" {
				tag, err := textNode(p.Tag, "the invocation tag")
				if err != nil {
					return nil, nil, nil, err
				}
				inv.Content = append(inv.Content, strNode("tag"), tag)
			}
			inv.Content = append(inv.Content, strNode("steps"), steps[k])
			invocations[p.Session] = append(invocations[p.Session], numbered{p.Invocation, inv})
		}
		agent, err := textNode(p.Agent, "the agent name")
		if err != nil {
			return nil, nil, nil, err
		}
		var t Trajectory
		if trajectoryOf != nil {
			t = trajectoryOf(x)
		}
		step := mapping("step", intNode(p.Step), "agent", agent, "trajectory", trajectoryNode(t))
		step.Content = append(step.Content, n.Content...)
		confirmations, err := confirmationsNode(x.Confirmations)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("interaction %d: %w", i+1, err)
		}
		if confirmations != nil {
			step.Content = append(step.Content, strNode("confirmations"), confirmations)
		}
		steps[k].Content = append(steps[k].Content, step)
		tools.step(p, step)
	}
	other.Content = append(other.Content, tools.attach()...)
	sort.Ints(sessionIDs)
	for _, id := range sessionIDs {
		invs := invocations[id]
		sort.SliceStable(invs, func(a, b int) bool { return invs[a].id < invs[b].id })
		list := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for _, inv := range invs {
			list.Content = append(list.Content, inv.node)
		}
		sessions.Content = append(sessions.Content, mapping("id", intNode(id), "invocations", list))
	}
	return sessions, other, live, nil
}

// trajectoryNode renders a trajectory compactly for reviewers. It is never
// read back: loading derives the trajectory from the bodies again.
func trajectoryNode(t Trajectory) *yaml.Node {
	n := mapping()
	if len(t.ToolResults) > 0 {
		list := flowList()
		for _, r := range t.ToolResults {
			list.Content = append(list.Content, flowMap("name", r.Name, "response", r.Response))
		}
		n.Content = append(n.Content, strNode("tool_results"), list)
	}
	if len(t.ToolCalls) > 0 {
		list := flowList()
		for _, c := range t.ToolCalls {
			list.Content = append(list.Content, flowMap("name", c.Name, "args", c.Args))
		}
		n.Content = append(n.Content, strNode("tool_calls"), list)
	}
	if t.Text != "" {
		n.Content = append(n.Content, strNode("text"), anyNode(t.Text))
	}
	if t.FinishReason != "" {
		n.Content = append(n.Content, strNode("finish_reason"), strNode(t.FinishReason))
	}
	if u := t.Usage; u != nil {
		usage := flowMap("prompt", u.Prompt, "candidates", u.Candidates, "total", u.Total)
		for _, extra := range []struct {
			name  string
			value int32
		}{{"thoughts", u.Thoughts}, {"cached", u.Cached}, {"tool_use", u.ToolUse}} {
			if extra.value > 0 {
				usage.Content = append(usage.Content, strNode(extra.name), anyNode(extra.value))
			}
		}
		n.Content = append(n.Content, strNode("usage"), usage)
	}
	if t.Latency > 0 {
		n.Content = append(n.Content, strNode("latency_ms"), floatNode(millis(t.Latency)))
	}
	if len(n.Content) == 0 {
		n.Style = yaml.FlowStyle
	}
	return n
}

func flowList() *yaml.Node {
	return &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle}
}

func flowMap(kv ...any) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: yaml.FlowStyle}
	for i := 0; i+1 < len(kv); i += 2 {
		n.Content = append(n.Content, strNode(kv[i].(string)), anyNode(kv[i+1]))
	}
	return n
}

// anyNode encodes a JSON-like value; maps come out with sorted keys.
func anyNode(v any) *yaml.Node {
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		return strNode(fmt.Sprint(v))
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!str" {
		if s, ok := faithfulScalar(n.Value); ok {
			return s
		}
	}
	setFlow(&n)
	return &n
}

func setFlow(n *yaml.Node) {
	if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
		n.Style = yaml.FlowStyle
	}
	for _, c := range n.Content {
		setFlow(c)
	}
}

// encodeYAML writes n with the settings every cassette uses; faithfulScalar
// checks its choices with the same settings.
func encodeYAML(buf *bytes.Buffer, n *yaml.Node) error {
	enc := yaml.NewEncoder(buf)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return err
	}
	return enc.Close()
}

// textNode is a scalar for a text field that must read back exactly.
func textNode(s, what string) (*yaml.Node, error) {
	if !utf8.ValidString(s) {
		return nil, fmt.Errorf("%s is not valid UTF-8 text", what)
	}
	n, ok := faithfulScalar(s)
	if !ok {
		return nil, fmt.Errorf("%s cannot be stored in YAML exactly", what)
	}
	return n, nil
}

// checkExchange refuses what Unmarshal would refuse, so that a cassette is
// never written that cannot be read back.
func checkExchange(x *Exchange) error {
	switch {
	case x == nil:
		return fmt.Errorf("nil exchange")
	case x.Request.Method == "":
		return fmt.Errorf("the request has no method")
	case !strings.HasPrefix(x.Request.Path, "/"):
		return fmt.Errorf("the request path %q does not start with /", x.Request.Path)
	case !validStatus(x.Response.Status):
		return fmt.Errorf("status %d is not an HTTP status", x.Response.Status)
	}
	if err := checkTool(&x.Request); err != nil {
		return err
	}
	switch x.Response.End {
	case "", EndComplete, EndEOF, EndReset:
		return nil
	}
	return fmt.Errorf("end %q is not complete, eof or reset", x.Response.End)
}

func exchangeNode(x *Exchange) (*yaml.Node, error) {
	if err := checkExchange(x); err != nil {
		return nil, err
	}
	method, err := textNode(x.Request.Method, "the request method")
	if err != nil {
		return nil, err
	}
	path, err := textNode(x.Request.Path, "the request path")
	if err != nil {
		return nil, err
	}
	req := mapping()
	if x.IsTool() {
		host, err := textNode(x.Request.Host, "the tool request's host")
		if err != nil {
			return nil, err
		}
		req.Content = append(req.Content, strNode("scheme"), strNode(x.Request.Scheme), strNode("host"), host)
	}
	req.Content = append(req.Content, mapping("method", method, "path", path).Content...)
	if x.Request.Query != "" {
		q, err := textNode(x.Request.Query, "the request query")
		if err != nil {
			return nil, err
		}
		req.Content = append(req.Content, strNode("query"), q)
	}
	if err := addHeaders(req, x.Request.Header, "request"); err != nil {
		return nil, err
	}
	addBody(req, x.Request.Body, x.Request.BodyFile)

	resp := mapping("status", intNode(x.Response.Status))
	if err := addHeaders(resp, x.Response.Header, "response"); err != nil {
		return nil, err
	}
	if x.Response.Streamed() {
		events := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for _, e := range x.Response.Events {
			events.Content = append(events.Content, eventNode(e))
		}
		resp.Content = append(resp.Content, mapping("sse", events).Content...)
	} else {
		addBody(resp, x.Response.Body, x.Response.BodyFile)
	}
	if x.Response.End != "" && x.Response.End != EndComplete {
		resp.Content = append(resp.Content, strNode("end"), strNode(string(x.Response.End)))
	}
	if x.Response.Latency > 0 {
		resp.Content = append(resp.Content, mapping("latency_ms", floatNode(millis(x.Response.Latency))).Content...)
	}
	return mapping("request", req, "response", resp), nil
}

// addHeaders stores h under canonical names, as Unmarshal reads them back;
// values of names that differ only in case are merged in name order.
func addHeaders(m *yaml.Node, h http.Header, what string) error {
	if len(h) == 0 {
		return nil
	}
	raw := slices.Sorted(maps.Keys(h))
	canonical := make(map[string][]string, len(h))
	var names []string
	for _, k := range raw {
		name := http.CanonicalHeaderKey(k)
		if _, seen := canonical[name]; !seen {
			names = append(names, name)
			canonical[name] = []string{}
		}
		canonical[name] = append(canonical[name], h[k]...)
	}
	sort.Strings(names)
	hn := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for _, k := range names {
		key, err := textNode(k, fmt.Sprintf("the %s header name %q", what, k))
		if err != nil {
			return err
		}
		vs := canonical[k]
		if len(vs) == 1 {
			hn.Content = append(hn.Content, key, headerValueNode(vs[0]))
			continue
		}
		seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle}
		for _, v := range vs {
			vn := headerValueNode(v)
			if vn.Kind != yaml.ScalarNode || vn.Style&yaml.LiteralStyle != 0 {
				// A flow sequence cannot hold a block scalar or a block mapping.
				seq.Style = 0
			}
			seq.Content = append(seq.Content, vn)
		}
		hn.Content = append(hn.Content, key, seq)
	}
	m.Content = append(m.Content, strNode("headers"), hn)
	return nil
}

// headerValueNode stores a header value as text when YAML can carry it
// exactly and as {base64: ...} otherwise (HTTP allows bytes that are not
// UTF-8 in header values).
func headerValueNode(v string) *yaml.Node {
	if utf8.ValidString(v) {
		if n, ok := faithfulScalar(v); ok {
			return n
		}
	}
	n := mapping("base64", base64Node([]byte(v)))
	n.Style = yaml.FlowStyle
	return n
}

func addBody(m *yaml.Node, body []byte, sideFile string) {
	if len(body) == 0 {
		return
	}
	if sideFile != "" {
		m.Content = append(m.Content, strNode("body"), strNode(sideFile), strNode("body_encoding"), strNode(encodingFile))
		return
	}
	n, enc := bodyNode(body)
	m.Content = append(m.Content, strNode("body"), n)
	if enc != encodingText {
		m.Content = append(m.Content, strNode("body_encoding"), strNode(enc))
	}
}

// eventNode stores `data: <payload><sep>` events as their payload, which
// reads as plain JSON; anything else is kept whole under `raw`.
func eventNode(e Event) *yaml.Node {
	var n *yaml.Node
	if payload, sep, ok := splitDataEvent(e.Data); ok {
		if s, ok := faithfulScalar(payload); ok {
			n = mapping("data", s)
			if sep == sepLF {
				n.Content = append(n.Content, strNode("sep"), strNode("lf"))
			}
		}
	}
	if n == nil {
		body, enc := bodyNode(e.Data)
		n = mapping("raw", body)
		if enc != encodingText {
			n.Content = append(n.Content, strNode("encoding"), strNode(enc))
		}
	}
	if e.After > 0 {
		n.Content = append(n.Content, strNode("after_ms"), floatNode(millis(e.After)))
	}
	return n
}

func splitDataEvent(b []byte) (payload, sep string, ok bool) {
	s := string(b)
	if !strings.HasPrefix(s, dataPrefix) {
		return "", "", false
	}
	for _, sep := range []string{sepCRLF, sepLF} {
		if p, found := strings.CutSuffix(s[len(dataPrefix):], sep); found && !strings.ContainsAny(p, "\r\n") {
			return p, sep, true
		}
	}
	return "", "", false
}
