// Package proxy records and replays an agent's Gemini and Vertex AI traffic
// as an http.Handler. Recording forwards each request upstream, streams the
// answer back as it arrives and keeps the exchange, placed in its session,
// invocation and step, in a cassette; replay answers from cassettes alone,
// never opening an upstream connection (unless Passthrough asks), and turns a request that differs
// from its recording into a Gemini-style error naming each differing field.
// The same handler serves SSE streams, the Live API over WebSocket,
// resumable uploads, an agent's tool traffic through its forward proxy
// (HTTPS_PROXY, with interception) and a control API under ControlPrefix.
// A Config says what to do: one Mode (the zero Config is a strict replay
// of ./testdata/cassettes), and hooks by stage in the manner of go-vcr's
// recorder (BeforeSave, BeforeReplay, Passthrough, Match). New makes a
// Server; serve it with any http.Server, then call Close to write the
// cassettes, and Failure, Report and Stats say how the run went.
package proxy
