// Package fakeadk is a scripted stand-in for an ADK API server (adk
// api_server), for tests and benchmarks of adkproxy simulate: named
// sessions, run_sse with a weather agent that calls a tool, and the
// session with all its events, in the JSON the servers write (camelCase,
// usageMetadata on model answers).
//
// The agent: a message naming Paris or Rome gets a get_weather call, its
// result and a report ("It is 21°C and <Weather> in <city>."), a message
// with "thanks" a farewell ("You're welcome. Anything else?"), anything
// else a question ("Which city?").
package fakeadk

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

type Server struct {
	// Weather is the sky the agent reports ("sunny"); changing it is a
	// changed agent.
	Weather string
	// Delay holds every run_sse answer back: a slower agent, whose turn
	// times a replay must not report as its own.
	Delay time.Duration
	// ToolArgs and ToolResult, when set, are the tool call's args and the
	// tool's response, sent as written (keys in their order).
	ToolArgs, ToolResult json.RawMessage

	mu       sync.Mutex
	sessions map[string]*fakeSession
	n        int
}

type fakeSession struct {
	ID      string         `json:"id"`
	AppName string         `json:"appName"`
	UserID  string         `json:"userId"`
	State   map[string]any `json:"state"`
	Events  []any          `json:"events"`
}

// ServeHTTP serves the API at the root (no prefix).
func (f *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/run_sse" {
		time.Sleep(f.Delay)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.sessions == nil {
		f.sessions = map[string]*fakeSession{}
	}
	body, _ := io.ReadAll(r.Body)
	seg := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if r.Method == http.MethodPost && len(seg) == 5 && seg[0] == "apps" && seg[4] == "sessions" {
		f.n++
		seg = append(seg, fmt.Sprintf("s-%d", f.n)) // the server names it
	}
	switch {
	case r.Method == http.MethodPost && len(seg) == 6 && seg[0] == "apps" && seg[4] == "sessions":
		var req struct {
			State map[string]any `json:"state"`
		}
		json.Unmarshal(body, &req)
		if _, ok := f.sessions[seg[5]]; ok {
			http.Error(w, `{"error":"Session already exists"}`, http.StatusBadRequest)
			return
		}
		s := &fakeSession{ID: seg[5], AppName: seg[1], UserID: seg[3], State: req.State, Events: []any{}}
		f.sessions[s.ID] = s
		json.NewEncoder(w).Encode(s)
	case r.Method == http.MethodGet && len(seg) == 6 && seg[4] == "sessions":
		s, ok := f.sessions[seg[5]]
		if !ok {
			http.NotFound(w, r)
			return
		}
		json.NewEncoder(w).Encode(s)
	case r.Method == http.MethodPost && r.URL.Path == "/run_sse":
		var req struct {
			SessionID  string `json:"sessionId"`
			NewMessage struct {
				Parts []struct {
					Text string `json:"text"`
				} `json:"parts"`
			} `json:"newMessage"`
		}
		json.Unmarshal(body, &req)
		s, ok := f.sessions[req.SessionID]
		if !ok {
			http.NotFound(w, r)
			return
		}
		f.n++
		inv := fmt.Sprintf("e-%d", f.n)
		user := req.NewMessage.Parts[0].Text
		s.Events = append(s.Events, f.event(inv, "user", map[string]any{"text": user}, false))
		w.Header().Set("Content-Type", "text/event-stream")
		for _, ev := range f.answer(inv, user) {
			s.Events = append(s.Events, ev)
			b, _ := json.Marshal(ev)
			fmt.Fprintf(w, "data: %s\n\n", b)
		}
	default:
		http.Error(w, "fakeadk: no route "+r.Method+" "+r.URL.Path, http.StatusNotFound)
	}
}

func (f *Server) event(inv, author string, part map[string]any, usage bool) map[string]any {
	f.n++
	role := "model"
	if author == "user" {
		role = "user"
	}
	ev := map[string]any{"id": fmt.Sprintf("ev-%d", f.n), "invocationId": inv, "author": author,
		"timestamp": float64(time.Now().UnixMilli()) / 1000, "actions": map[string]any{},
		"content": map[string]any{"role": role, "parts": []any{part}}}
	if usage {
		ev["usageMetadata"] = map[string]any{"promptTokenCount": 100, "cachedContentTokenCount": 40, "candidatesTokenCount": 10, "totalTokenCount": 110}
		ev["modelVersion"] = "gemini-2.5-flash"
	}
	return ev
}

// answer is the weather agent: a message naming Paris or Rome gets a tool
// call and a report, "thanks" a farewell, anything else a question.
func (f *Server) answer(inv, user string) []any {
	lower := strings.ToLower(user)
	for _, city := range []string{"Paris", "Rome"} {
		if strings.Contains(lower, strings.ToLower(city)) {
			var args, result any = map[string]any{"city": city}, map[string]any{"city": city, "sky": f.Weather, "temp_c": 21}
			if f.ToolArgs != nil {
				args = f.ToolArgs
			}
			if f.ToolResult != nil {
				result = f.ToolResult
			}
			return []any{
				f.event(inv, "weather_agent", map[string]any{"functionCall": map[string]any{"id": fmt.Sprintf("adk-%d", f.n), "name": "get_weather", "args": args}}, true),
				f.event(inv, "weather_agent", map[string]any{"functionResponse": map[string]any{"id": fmt.Sprintf("adk-%d", f.n), "name": "get_weather", "response": result}}, false),
				f.event(inv, "weather_agent", map[string]any{"text": fmt.Sprintf("It is 21°C and %s in %s.", f.Weather, city)}, true),
			}
		}
	}
	if strings.Contains(lower, "thanks") {
		return []any{f.event(inv, "weather_agent", map[string]any{"text": "You're welcome. Anything else?"}, true)}
	}
	return []any{f.event(inv, "weather_agent", map[string]any{"text": "Which city?"}, true)}
}
