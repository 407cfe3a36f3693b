// Package recorded is the one model of a recorded run: a folder of
// cassettes read back as Run → Cassette → Session → Invocation → Step, each
// step one model call with what its exchange says (its agent and model, the
// tool results it was sent, the tool calls and text it answered with, its
// usage and latency), the tool exchanges its tools made (HTTPCall) and the
// user's answers to tool confirmations filed on the calls they answered.
//
// Build and CassetteOf read it; everything that looks at a recorded run
// starts from it: scoring's sessions, the run views of ls (runview), diff
// (rundiff), the OTLP export, the HTML pages. Where sessions and
// invocations are is conversation's business (Organize; a Live connection's
// steps are wire.LiveSteps); each
// model call is read once, by package wire (wire.StepOf), and every step keeps
// its exchange for anything the model does not carry.
package recorded
