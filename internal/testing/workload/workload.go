// Package workload builds the benchmark's traffic deterministically: a
// realistic ~4 KB generateContent request (a history with a function call
// and its response, two tool declarations, a system instruction), the 2 KB
// JSON answer and the 20-event SSE answer that every target serves, and
// request mixes for the large-cassette measurements. The same bytes come
// out on every run and every machine, so the peers' tapes, the adkproxy
// cassettes, the static server and the load generator always agree.
package workload

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
)

// Paths of the two kinds of call the benchmark makes.
const (
	JSONPath = "/v1beta/models/gemini-2.5-flash:generateContent"
	SSEPath  = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
)

// Sizes the generated bodies are padded to, exactly.
const (
	RequestSize  = 4096
	TurnSize     = 2048 // TurnRequest
	ResponseSize = 2048
	SSEEvents    = 20
)

// Content types the targets answer with (those of the real API).
const (
	JSONContentType = "application/json; charset=UTF-8"
	SSEContentType  = "text/event-stream"
)

// words is the vocabulary of the generated prose.
var words = strings.Fields(`agent tool weather forecast city temperature wind humidity
record replay cassette request response stream event model history session invocation
step function call result user answer question travel plan itinerary museum train
station ticket price budget morning evening rain sunny cloudy warm cold degrees
kilometres hotel booking check available schedule route distance minutes hours`)

// prose returns n words drawn deterministically from seed.
func prose(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[r.IntN(len(words))])
	}
	return b.String()
}

// ordered is a JSON object that keeps its keys in the order given, as an
// SDK writes them (encoding/json would sort a map's keys).
type ordered []kv

type kv struct {
	k string
	v any
}

// appendJSON writes v as compact JSON without HTML escaping, so the bytes
// are those JavaScript's JSON.stringify gives too. It knows the few types
// the generated bodies use.
func appendJSON(b []byte, v any) []byte {
	switch t := v.(type) {
	case ordered:
		b = append(b, '{')
		for i, e := range t {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, e.k)
			b = append(b, ':')
			b = appendJSON(b, e.v)
		}
		return append(b, '}')
	case []any:
		b = append(b, '[')
		for i, e := range t {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, e)
		}
		return append(b, ']')
	case []string:
		b = append(b, '[')
		for i, e := range t {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, e)
		}
		return append(b, ']')
	case string:
		return appendString(b, t)
	case int:
		return strconv.AppendInt(b, int64(t), 10)
	case float64:
		return strconv.AppendFloat(b, t, 'f', -1, 64)
	}
	panic(fmt.Sprintf("workload: cannot encode %T", v))
}

func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

func mustMarshal(v any) []byte { return appendJSON(nil, v) }

// request builds a generateContent body for variant i (0 is the one the
// throughput runs use; the mix for the large cassettes uses others) with a
// system instruction of padWords words of filler.
func request(i int, user string, pad string) []byte {
	user = fmt.Sprintf("%s (trip %d)", user, i)
	city := []string{"Paris", "Tokyo", "Lima", "Oslo", "Cairo"}[i%5]
	contents := []any{
		ordered{{"parts", []any{ordered{{"text", user}}}}, {"role", "user"}},
		ordered{{"parts", []any{ordered{
			{"functionCall", ordered{{"args", ordered{{"city", city}, {"days", 3}}}, {"name", "get_forecast"}}},
			{"thoughtSignature", "CssBAb4+9vtA0YNySGDhNbWUekpgT0C4JzfoLAMCUxxSlERpI2LVij53p/T9qWJSHxNvQmxdYycF8yf/oRMZ0cnD1wKxww2tYiJpDtgJXwJRLKNaB6YpvNLH7gbW"},
		}}}, {"role", "model"}},
		ordered{{"parts", []any{ordered{{"functionResponse", ordered{
			{"name", "get_forecast"},
			{"response", ordered{
				{"city", city},
				{"days", []any{
					ordered{{"day", 1}, {"summary", prose(uint64(100+i), 12)}, {"high_c", 21.5}, {"low_c", 12}},
					ordered{{"day", 2}, {"summary", prose(uint64(200+i), 12)}, {"high_c", 19}, {"low_c", 11.25}},
					ordered{{"day", 3}, {"summary", prose(uint64(300+i), 12)}, {"high_c", 23}, {"low_c", 14}},
				}},
			}},
		}}}}}, {"role", "user"}},
	}
	schema := func(props ordered, required ...string) ordered {
		return ordered{{"type", "object"}, {"properties", props}, {"required", required}}
	}
	tools := []any{ordered{{"functionDeclarations", []any{
		ordered{
			{"name", "get_forecast"},
			{"description", "Returns the weather forecast for a city for the next days: a summary, the high and the low temperature in degrees Celsius for each day."},
			{"parametersJsonSchema", schema(ordered{
				{"city", ordered{{"type", "string"}, {"description", "The city, in English."}}},
				{"days", ordered{{"type", "integer"}, {"description", "How many days, 1 to 7."}}},
			}, "city")},
		},
		ordered{
			{"name", "book_hotel"},
			{"description", "Books a hotel room in a city for the given nights and returns a confirmation number and the total price in euros."},
			{"parametersJsonSchema", schema(ordered{
				{"city", ordered{{"type", "string"}}},
				{"check_in", ordered{{"type", "string"}, {"description", "ISO date."}}},
				{"nights", ordered{{"type", "integer"}}},
				{"max_price_eur", ordered{{"type", "number"}}},
			}, "city", "check_in", "nights")},
		},
	}}}}
	body := ordered{
		{"contents", contents},
		{"systemInstruction", ordered{{"parts", []any{ordered{{"text",
			"You are a careful travel assistant. Your internal name is \"travel_agent\". Use get_forecast before suggesting outdoor plans and book_hotel only when the user confirms. " + pad}}}}, {"role", "user"}}},
		{"tools", tools},
		{"generationConfig", ordered{{"temperature", 0.4}, {"topP", 0.95}, {"maxOutputTokens", 1024}}},
	}
	return mustMarshal(body)
}

// fit returns build(filler) with filler chosen so the result is exactly
// size bytes long. The filler is plain ASCII prose, which JSON encodes as
// is, so each filler byte adds exactly one byte to the body.
func fit(size int, seed uint64, build func(filler string) []byte) []byte {
	need := size - len(build(""))
	if need < 0 {
		panic(fmt.Sprintf("workload: the body is over %d bytes without filler", size))
	}
	var text string
	for n := need/6 + 1; len(text) < need; n *= 2 {
		text = prose(seed, n)
	}
	text = strings.TrimRight(text[:need], " ")
	text += strings.Repeat(".", need-len(text))
	b := build(text)
	if len(b) != size {
		panic(fmt.Sprintf("workload: built %d bytes, want %d", len(b), size))
	}
	return b
}

// Request is the 4096-byte request body every throughput run sends.
func Request() []byte { return MixRequest(0) }

// MixRequest is variant i of the request: same shape and size, other
// user text, city and forecast, so each has its own fingerprint.
func MixRequest(i int) []byte {
	return fit(RequestSize, uint64(7+i), func(pad string) []byte {
		return request(i, "Plan two days outdoors for me", pad)
	})
}

// TurnRequest is the i-th of a run of distinct first turns: a
// generateContent body of exactly TurnSize bytes whose one user turn (its
// text numbered i, then filler) differs from every other i's, under the
// same system instruction and tool, so each call opens a session of its
// own, as a suite of independent conversations does.
func TurnRequest(i int) []byte {
	return fit(TurnSize, uint64(90_000+i), func(pad string) []byte {
		return mustMarshal(ordered{
			{"contents", []any{ordered{{"parts", []any{ordered{{"text",
				fmt.Sprintf("Question %d: what should I pack for three days outdoors? ", i) + pad}}}}, {"role", "user"}}}},
			{"systemInstruction", ordered{{"parts", []any{ordered{{"text",
				"You are a careful travel assistant. Use get_forecast before suggesting outdoor plans."}}}}, {"role", "user"}}},
			{"tools", []any{ordered{{"functionDeclarations", []any{ordered{
				{"name", "get_forecast"},
				{"description", "Returns the weather forecast for a city for the next days."},
				{"parametersJsonSchema", ordered{{"type", "object"}, {"properties", ordered{
					{"city", ordered{{"type", "string"}}}, {"days", ordered{{"type", "integer"}}}}}, {"required", []string{"city"}}}},
			}}}}}},
			{"generationConfig", ordered{{"temperature", 0.4}, {"maxOutputTokens", 1024}}},
		})
	})
}

// JSONResponse is the 2048-byte generateContent answer, indented with two
// spaces like the real API's (and like JavaScript's JSON.stringify(v,
// null, 2), so a tape that stores it as an object gives the same bytes).
func JSONResponse() []byte { return MixJSONResponse(0) }

// MixJSONResponse is the answer to MixRequest(i).
func MixJSONResponse(i int) []byte {
	return fit(ResponseSize, uint64(1000+i), func(text string) []byte {
		body := ordered{
			{"candidates", []any{ordered{
				{"content", ordered{{"parts", []any{ordered{{"text", fmt.Sprintf("Answer %d: ", i) + text}}}}, {"role", "model"}}},
				{"finishReason", "STOP"},
				{"index", 0},
			}}},
			{"usageMetadata", ordered{
				{"promptTokenCount", 1012},
				{"candidatesTokenCount", 389},
				{"totalTokenCount", 1401},
				{"promptTokensDetails", []any{ordered{{"modality", "TEXT"}, {"tokenCount", 1012}}}},
			}},
			{"modelVersion", "gemini-2.5-flash"},
			{"responseId", "XTGwabD8KpaxkdUP3MTwoAk"},
		}
		var out bytes.Buffer
		if err := json.Indent(&out, mustMarshal(body), "", "  "); err != nil {
			panic(err)
		}
		return out.Bytes()
	})
}

// SSEEventList is the streamed answer: SSEEvents events in Gemini's
// framing, "data: {...}\r\n\r\n", the last one with the finish reason and
// usage.
func SSEEventList() [][]byte {
	out := make([][]byte, SSEEvents)
	for i := range out {
		cand := ordered{
			{"content", ordered{{"parts", []any{ordered{{"text", prose(uint64(5000+i), 14) + " "}}}}, {"role", "model"}}},
			{"index", 0},
		}
		ev := ordered{{"candidates", []any{cand}}}
		if i == len(out)-1 {
			cand = append(cand, kv{"finishReason", "STOP"})
			ev = ordered{{"candidates", []any{cand}},
				{"usageMetadata", ordered{{"promptTokenCount", 1012}, {"candidatesTokenCount", 389}, {"totalTokenCount", 1401}}}}
		}
		ev = append(ev, kv{"modelVersion", "gemini-2.5-flash"}, kv{"responseId", "XTGwabD8KpaxkdUP3MTwoAk"})
		out[i] = append(append([]byte("data: "), mustMarshal(ev)...), "\r\n\r\n"...)
	}
	return out
}

// SSEBody is the whole streamed answer as one byte string.
func SSEBody() []byte { return bytes.Join(SSEEventList(), nil) }

// Exchanges are the two recorded calls as adkproxy keeps them:
// generateContent answered with JSONResponse, streamGenerateContent with
// the SSE events. They have no place in a conversation yet (see
// conversation.Organize).
func Exchanges() []*cassettes.Exchange {
	ssePath, sseQuery, _ := strings.Cut(SSEPath, "?")
	reqHeader := func() http.Header { return http.Header{"Content-Type": {"application/json"}} }
	x1 := &cassettes.Exchange{
		Request: cassettes.Request{Method: http.MethodPost, Path: JSONPath, Header: reqHeader(), Body: Request()},
		Response: cassettes.Response{Status: http.StatusOK, Header: http.Header{"Content-Type": {JSONContentType}},
			Body: JSONResponse(), End: cassettes.EndComplete, Latency: 812 * time.Millisecond},
	}
	x2 := &cassettes.Exchange{
		Request: cassettes.Request{Method: http.MethodPost, Path: ssePath, Query: sseQuery, Header: reqHeader(), Body: Request()},
		Response: cassettes.Response{Status: http.StatusOK, Header: http.Header{"Content-Type": {SSEContentType}},
			End: cassettes.EndComplete, Latency: 1400 * time.Millisecond},
	}
	for i, ev := range SSEEventList() {
		after := 35 * time.Millisecond
		if i == 0 {
			after = 700 * time.Millisecond
		}
		x2.Response.Events = append(x2.Response.Events, cassettes.Event{Data: ev, After: after})
	}
	return []*cassettes.Exchange{x1, x2}
}

// MixExchange is the recording of MixRequest(i), answered with
// MixJSONResponse(i).
func MixExchange(i int) *cassettes.Exchange {
	return &cassettes.Exchange{
		Request: cassettes.Request{Method: http.MethodPost, Path: JSONPath,
			Header: http.Header{"Content-Type": {"application/json"}}, Body: MixRequest(i)},
		Response: cassettes.Response{Status: http.StatusOK, Header: http.Header{"Content-Type": {JSONContentType}},
			Body: MixJSONResponse(i), End: cassettes.EndComplete, Latency: 900 * time.Millisecond},
	}
}
