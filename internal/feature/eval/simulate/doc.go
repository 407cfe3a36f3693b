// Package simulate plays ADK conversation scenarios against an agent
// served by an ADK API server, with an LLM-backed simulated user, as ADK's
// user simulator does (see ../shared/reference/adk-simulation.md): the
// starting prompt is sent verbatim, each later user turn is written by a
// model from the conversation plan, the persona and the history, and the
// conversation ends on the stop signal </finished> (matched without regard
// to case; that reply is never sent), at max_allowed_invocations (the
// starting prompt counts), or when the simulator gives no reply (the
// scenario then fails with the reason). Static conversations (eval cases
// with a conversation) are played turn by turn, as ADK's static simulator
// does.
//
// It owns the simulated user's prompts (adkproxy's own text, Jinja
// templates rendered with gonja, as are the custom instructions of
// user_simulator_config), the conversation loop, the replay verification
// of each user turn and the outputs (eval set, sessions table, transcripts). The scenario data model
// is package scenarios'; the API server client is package api's; run
// metrics are package scoring's.
//
// The simulated user talks to its model through a *genai.Client it is
// given, or for a model named "openai/MODEL" through an inprocess.Chat
// (chat completions on Gemini's OpenAI-compatible endpoint). The adkproxy command builds that client on the proxy package's
// in-process transport, so each call is recorded into, or replayed from,
// the --sim-cassettes folder: one cassette per scenario, named by the
// scenario id, and in it one invocation per simulated turn, named
// "<scenario id>/turn-<N>" (X-Adkproxy-Invocation), N counting user turns
// from 1 (turn 1 is the starting prompt and makes no call, so the first
// call is turn 2). In replay a turn whose request differs from its
// recording — the agent answered differently — is a divergence: the
// recorded user turn is still sent, and the run reports
// "scenario S diverged at turn N" with the field-level difference.
// Beside each cassette, <scenario id>.timings.json keeps the agent's time
// per turn as the recording run measured it: a replay reports those, so its outputs are byte-identical to the recording's.
package simulate
