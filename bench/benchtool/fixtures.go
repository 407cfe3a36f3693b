// The fixtures the replay throughput runs serve: the request body, and the
// same JSON and SSE exchanges as an adkproxy cassette and as proxay's and
// talkback's tapes, so every peer replays identical traffic.

package main

import (
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/data/conversation"
	"github.com/adkproxy/adkproxy/internal/testing/workload"
	"github.com/adkproxy/adkproxy/internal/wire"
	"github.com/adkproxy/adkproxy/matcher"
	"gopkg.in/yaml.v3"
)

// fixtures writes everything the throughput runs replay: the request body
// as a file, the adkproxy cassette, the proxay tape and the talkback tapes,
// each holding the JSON and the SSE exchange. (bench/govcr writes go-vcr's
// cassette itself, through go-vcr.)
func fixtures(args []string) error {
	fs := flag.NewFlagSet("fixtures", flag.ContinueOnError)
	dir := fs.String("dir", "", "output `DIR`")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" {
		return fmt.Errorf("-dir is required")
	}
	for name, data := range map[string][]byte{
		"request.json":  workload.Request(),
		"response.json": workload.JSONResponse(),
		"response.sse":  workload.SSEBody(),
	} {
		if err := writeFile(filepath.Join(*dir, name), data); err != nil {
			return err
		}
	}
	if err := writeAdkproxyCassette(filepath.Join(*dir, "adkproxy")); err != nil {
		return err
	}
	if err := writeProxayTape(filepath.Join(*dir, "proxay")); err != nil {
		return err
	}
	return writeTalkbackTapes(filepath.Join(*dir, "talkback"))
}

func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// writeAdkproxyCassette saves the exchanges as the default cassette, placed
// in their session as a recording would place them.
func writeAdkproxyCassette(dir string) error {
	xs := workload.Exchanges()
	conversation.Organize(matcher.Default(), xs)
	return cassettes.Save(filepath.Join(dir, cassettes.DefaultName+cassettes.Extension),
		&cassettes.Cassette{Name: cassettes.DefaultName, Exchanges: xs, Trajectories: wire.StepOf}, cassettes.NewRedactor())
}

// proxay's tape format (proxay 1.9.0 dist/persistence.js): YAML with
// http_interactions, each request and response body as {encoding, data,
// compression}, the status as {code}. In exact-matching mode proxay
// compares the request headers it does not strip (host and user-agent are
// stripped; content-type and content-length are compared).
type proxayTape struct {
	Interactions []proxayRecord `yaml:"http_interactions"`
}

type proxayRecord struct {
	Request struct {
		Method  string            `yaml:"method"`
		Path    string            `yaml:"path"`
		Headers map[string]string `yaml:"headers"`
		Body    proxayBody        `yaml:"body"`
	} `yaml:"request"`
	Response struct {
		Status struct {
			Code int `yaml:"code"`
		} `yaml:"status"`
		Headers map[string]string `yaml:"headers"`
		Body    proxayBody        `yaml:"body"`
	} `yaml:"response"`
}

type proxayBody struct {
	Encoding    string `yaml:"encoding"`
	Data        string `yaml:"data"`
	Compression string `yaml:"compression"`
}

func writeProxayTape(dir string) error {
	var tape proxayTape
	for _, x := range workload.Exchanges() {
		var r proxayRecord
		r.Request.Method = x.Request.Method
		r.Request.Path = x.Request.Path
		if x.Request.Query != "" {
			r.Request.Path += "?" + x.Request.Query
		}
		r.Request.Headers = map[string]string{"content-type": "application/json", "content-length": strconv.Itoa(len(x.Request.Body))}
		r.Request.Body = proxayBody{Encoding: "utf8", Data: string(x.Request.Body), Compression: "none"}
		body := wireBody(&x.Response)
		r.Response.Status.Code = x.Response.Status
		r.Response.Headers = map[string]string{"content-type": x.Response.Header.Get("Content-Type"), "content-length": strconv.Itoa(len(body))}
		r.Response.Body = proxayBody{Encoding: "utf8", Data: string(body), Compression: "none"}
		tape.Interactions = append(tape.Interactions, r)
	}
	data, err := yaml.Marshal(&tape)
	if err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, "default.yml"), data)
}

// wireBody is a response body as the client receives it.
func wireBody(r *cassettes.Response) []byte {
	if !r.Streamed() {
		return r.Body
	}
	var b []byte
	for _, ev := range r.Events {
		b = append(b, ev.Data...)
	}
	return b
}

// talkback's tape format (talkback 4.2.0 tape-renderer.js): one JSON5 file
// per interaction with meta, req and res. A JSON body is stored as the
// parsed object when meta.{req,res}HumanReadable is set, and talkback
// serves it as JSON.stringify(body, null, 2); other bodies (text/event-stream
// is not in its human-readable list) are base64. Request headers are
// matched exactly, except content-length and host.
type talkbackTape struct {
	Meta talkbackMeta `json:"meta"`
	Req  struct {
		URL     string            `json:"url"`
		Method  string            `json:"method"`
		Headers map[string]string `json:"headers"`
		Body    json.RawMessage   `json:"body"`
	} `json:"req"`
	Res struct {
		Status  int                 `json:"status"`
		Headers map[string][]string `json:"headers"`
		Body    json.RawMessage     `json:"body"`
	} `json:"res"`
}

type talkbackMeta struct {
	CreatedAt        string `json:"createdAt"`
	Host             string `json:"host"`
	ReqHumanReadable bool   `json:"reqHumanReadable,omitempty"`
	ResHumanReadable bool   `json:"resHumanReadable,omitempty"`
}

func writeTalkbackTapes(dir string) error {
	for i, x := range workload.Exchanges() {
		var t talkbackTape
		t.Meta = talkbackMeta{CreatedAt: "2026-03-10T14:57:34.000Z", Host: "https://generativelanguage.googleapis.com", ReqHumanReadable: true}
		t.Req.URL = x.Request.Path
		if x.Request.Query != "" {
			t.Req.URL += "?" + x.Request.Query
		}
		t.Req.Method = x.Request.Method
		t.Req.Headers = map[string]string{"user-agent": "adkproxy-bench", "content-type": "application/json"}
		t.Req.Body = x.Request.Body
		body := wireBody(&x.Response)
		ctype := x.Response.Header.Get("Content-Type")
		t.Res.Status = x.Response.Status
		t.Res.Headers = map[string][]string{"content-type": {ctype}, "content-length": {strconv.Itoa(len(body))}}
		if x.Response.Streamed() {
			b64, _ := json.Marshal(base64.StdEncoding.EncodeToString(body))
			t.Res.Body = b64
		} else {
			t.Meta.ResHumanReadable = true
			t.Res.Body = body
		}
		data, err := json.MarshalIndent(&t, "", "    ")
		if err != nil {
			return err
		}
		if err := writeFile(filepath.Join(dir, fmt.Sprintf("bench-%d.json5", i+1)), append(data, '\n')); err != nil {
			return err
		}
	}
	return nil
}
