// The import: read the export, redact, rebuild the model calls, write the
// cassette and the eval set.

package otlpimport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/textfmt"
	"github.com/adkproxy/adkproxy/internal/data/conformance"
	"github.com/adkproxy/adkproxy/internal/feature/report/otlpexport"
	"github.com/adkproxy/adkproxy/internal/wire"
	"github.com/adkproxy/adkproxy/scoring"
)

// ErrInput marks an export that cannot be read or holds no ADK model call.
var ErrInput = errors.New("bad OTLP input")

// Options shape an import.
type Options struct {
	// Out is the folder the cassette and the eval set go to.
	Out string
	// Name names the cassette and the eval set; "" takes the input file's
	// name without its extensions.
	Name string
	// Patterns are the user's regular expressions of more values to replace.
	Patterns []string
}

// Result is what an import wrote and what it could not use.
type Result struct {
	Cassette, EvalSet            string
	Sessions, Invocations, Calls int
	Replacements                 []Replacement
	// Missing says, per model call left out, which body its span lacked.
	Missing []string
}

// Import reads file and writes <Out>/<name>.yaml and
// <Out>/<name>.evalset.json. Errors about the input wrap ErrInput and
// name the file and the field.
func Import(file string, opts Options) (*Result, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInput, err)
	}
	r, err := newRedactor(opts.Patterns)
	if err != nil {
		return nil, err
	}
	name := opts.Name
	if name == "" {
		name = strings.SplitN(filepath.Base(file), ".", 2)[0]
	}
	cas, res, err := Convert(file, data, name, r)
	if err != nil {
		return nil, err
	}
	if err := write(cas, name, opts.Out, res); err != nil {
		return nil, err
	}
	return res, nil
}

// Convert builds the cassette from an export's bytes; file names it in
// errors.
func Convert(file string, data []byte, name string, r *redactor) (*cassettes.Cassette, *Result, error) {
	req, err := readExport(file, data)
	if err != nil {
		return nil, nil, err
	}
	invs := invocations(req)
	if len(invs) == 0 {
		return nil, nil, fmt.Errorf("%w: %s: no call_llm span (ADK's model calls) in resourceSpans[].scopeSpans[].spans[]; export ADK's traces with its gcp.vertex.agent spans", ErrInput, file)
	}
	cas := &cassettes.Cassette{Name: name, Trajectories: wire.StepOf}
	res := &Result{}
	sessions := map[string]int{}
	perSession := map[int]int{}
	for _, inv := range invs {
		if _, ok := sessions[inv.session]; !ok {
			sessions[inv.session] = len(sessions) + 1
		}
		session := sessions[inv.session]
		perSession[session]++
		place := cassettes.Place{Session: session, Invocation: perSession[session]}
		if err := addInvocation(cas, res, file, inv, place, r); err != nil {
			return nil, nil, err
		}
	}
	if len(cas.Exchanges) == 0 {
		return nil, nil, fmt.Errorf("%w: %s: no call_llm span carries both %s and %s, so no model call can be rebuilt (%s)",
			ErrInput, file, attrRequest, attrResponse, strings.Join(res.Missing, "; "))
	}
	res.Sessions, res.Calls = len(sessions), len(cas.Exchanges)
	for _, rep := range r.order {
		res.Replacements = append(res.Replacements, *rep)
	}
	return cas, res, nil
}

// readExport reads one OTLP/JSON request, or several one after another
// (a collector's file exporter writes one a line), as one.
func readExport(file string, data []byte) (*coltracepb.ExportTraceServiceRequest, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	all := &coltracepb.ExportTraceServiceRequest{}
	for n := 1; ; n++ {
		where := file
		if n > 1 {
			rest := data[d.InputOffset():]
			at := len(data) - len(bytes.TrimLeft(rest, " \t\r\n"))
			where = fmt.Sprintf("%s: request %d (line %d)", file, n, 1+bytes.Count(data[:at], []byte("\n")))
		}
		var raw json.RawMessage
		err := d.Decode(&raw)
		if err == io.EOF && n > 1 {
			return all, nil
		}
		if err == io.EOF {
			return nil, fmt.Errorf("%w: %s: empty; want OTLP/JSON ({\"resourceSpans\": [...]})", ErrInput, file)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %s: OTLP/JSON: %v", ErrInput, where, err)
		}
		req, err := otlpexport.UnmarshalJSON(raw)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrInput, where, err)
		}
		all.ResourceSpans = append(all.ResourceSpans, req.ResourceSpans...)
	}
}

// addInvocation rebuilds one trace's model calls into cas.
func addInvocation(cas *cassettes.Cassette, res *Result, file string, inv *invocation, place cassettes.Place, r *redactor) error {
	added := 0
	for _, c := range inv.calls {
		where := file + ": " + c.where
		if c.failed != "" {
			res.Missing = append(res.Missing, fmt.Sprintf("%s: the model call failed (%s); no answer to replay", where, c.failed))
			continue
		}
		if lacks := lacking(c); lacks != "" {
			res.Missing = append(res.Missing, fmt.Sprintf("%s: no %s (ADK writes it only when it captures message content); this model call is left out", where, lacks))
			continue
		}
		request, err := redactJSON(r, c.request, where+" "+attrRequest)
		if err != nil {
			return err
		}
		response, err := redactJSON(r, c.response, where+" "+attrResponse)
		if err != nil {
			return err
		}
		x, err := conformance.ExchangeFromJSON(where, request, response)
		if err != nil {
			return fmt.Errorf("%w: %v", ErrInput, err)
		}
		if added == 0 {
			place.User = userText(x.Request.Body) // the turn that started the invocation
		}
		p := place
		p.Step, p.Agent, p.Tag = added, c.agent, r.text(inv.id, where+" "+attrInvoc)
		x.Place = &p
		cas.Exchanges = append(cas.Exchanges, x)
		added++
	}
	if added > 0 {
		res.Invocations++
	}
	return nil
}

// lacking names the attributes a call_llm span lacks; "{}" (what ADK
// writes when content capture is off) counts as lacking.
func lacking(c modelCall) string {
	var out []string
	for _, kv := range [][2]string{{attrRequest, c.request}, {attrResponse, c.response}} {
		if v := strings.TrimSpace(kv[1]); v == "" || v == "{}" {
			out = append(out, kv[0])
		}
	}
	return strings.Join(out, " and ")
}

// redactJSON decodes an attribute's JSON, replaces personal data in its
// strings, and encodes it again.
func redactJSON(r *redactor, s, where string) ([]byte, error) {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("%w: %s: not JSON: %v", ErrInput, where, err)
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, fmt.Errorf("%w: %s: want a JSON object", ErrInput, where)
	}
	return textfmt.CompactJSON(r.value(v, where))
}

// userText is the text of the last user turn in a request: what started
// the invocation.
func userText(body []byte) string {
	var req struct {
		Contents []struct {
			Role  string `json:"role"`
			Parts []struct {
				Text *string `json:"text"`
			} `json:"parts"`
		} `json:"contents"`
	}
	if json.Unmarshal(body, &req) != nil {
		return ""
	}
	for i := len(req.Contents) - 1; i >= 0; i-- {
		c := req.Contents[i]
		var texts []string
		for _, p := range c.Parts {
			if p.Text != nil && *p.Text != "" {
				texts = append(texts, *p.Text)
			}
		}
		if c.Role == "user" && len(texts) > 0 {
			return strings.Join(texts, "\n")
		}
	}
	return ""
}

// write saves the cassette and the eval set made from it.
func write(cas *cassettes.Cassette, name, out string, res *Result) error {
	path, err := cassettes.PathFor(out, name)
	if err != nil {
		return fmt.Errorf("%w: cassette name %q: %v", ErrInput, name, err)
	}
	if err := cassettes.Save(path, cas, nil); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := scoring.WriteEvalSet(&b, name, scoring.SessionsOf(map[string]*cassettes.Cassette{name: cas})); err != nil {
		return err
	}
	evalPath := filepath.Join(out, name+".evalset.json")
	if err := cassettes.WriteFileAtomic(evalPath, b.Bytes()); err != nil {
		return fmt.Errorf("%w: %s: %v", cassettes.ErrWrite, evalPath, err)
	}
	res.Cassette, res.EvalSet = path, evalPath
	return nil
}
