// Package drive plays a fixed conversation against an ADK API server:
// it creates a session with the conversation's initial state, posts each
// user turn to run_sse (patching the id of a function_response that
// answers a long-running tool in from the call of that name the server
// made earlier), and returns the session as the server stores it.
//
// Conversations come from an ADK conformance case's spec.yaml
// (FromSpec) or from the eval cases of an ADK eval set (FromEvalSet); the
// client is package api's, the spec reader package conformance's, the eval set
// reader evalset's.
package drive
