// Package judge computes ADK's LLM-judged metrics — final_response_match_v2,
// rubric_based_final_response_quality_v1, rubric_based_tool_use_quality_v1,
// hallucinations_v1 and, for conversation_scenario cases,
// per_turn_user_simulator_quality_v1 — for package scoring (it implements
// scoring.Judge). It owns the prompts (adkproxy's own text, embedded
// text/template files under prompts/, each stating the output format its
// parser expects), the parsers (ADK's regular expressions and their quirks),
// sampling (judge_model_options.num_samples calls per invocation), the
// majority vote (ties count as negative), the retry policy, and ADK's way
// of turning verdicts into scores (pooled means computed exactly, as
// Python's statistics.mean does).
//
// It talks to the judge model through a *genai.Client it is given (a
// judge_model "openai/MODEL" through an inprocess.Chat: chat completions
// on Gemini's OpenAI-compatible endpoint, on the same transport); the
// adkproxy command builds that client on the proxy package's in-process
// transport, so every judge call is recorded into, or replayed from, a
// cassette like an agent's traffic. Each call names its cassette (one per
// eval case: "<eval_set_id>/<eval_id>") and its key ("<eval_id>/<invocation>/
// <criterion>/<sample>"; the simulator metric's stop check uses samples
// "stop.<n>" of the last turn) in the X-Adkproxy-Cassette and
// X-Adkproxy-Invocation headers. Calls of one case are made one after another, in a fixed order,
// so identical requests (the samples of one invocation) meet their
// recordings in the order they were recorded.
package judge
