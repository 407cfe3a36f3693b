// Package proxy serves adkproxy's HTTP endpoint. In record mode it forwards
// each request to the Gemini (or Vertex AI) API, streams the answer back as
// it arrives and keeps the exchange for its cassette; in replay mode it
// answers from cassettes alone, never opening an upstream connection, and
// turns any request that was not recorded into a Gemini-style error.
// Config's Mode says which of these a Server does, and Server.Failure
// when a run under it has failed.
package proxy
