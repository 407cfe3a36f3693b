// Package scenarios owns ADK's conversation-scenario data model, the input
// of a simulated user: a scenario (starting prompt, conversation plan,
// optional persona), the {"scenarios": [...]} file and the session_input
// file as `adk eval_set add_eval_case` takes them, the eval-set case that
// holds a conversation_scenario, ADK's scenario id, the catalogue of
// pre-built personas and behaviors, and the user_simulator_config of an
// eval config.
//
// It is data only: the simulator that plays a scenario (adkproxy simulate)
// and the judge that grades a simulated user (per_turn_user_simulator_
// quality_v1, package judge) read these types. Texts in the catalogue are
// adkproxy's own wording; they may hold ADK's Jinja placeholder
// {{ stop_signal }}, which whoever renders them substitutes.
//
// Loading errors name the file and the field:
// `scenarios.json: scenarios[1].user_persona: unknown persona id "NOVIC"
// (pre-built: EXPERT, NOVICE, EVALUATOR)`.
package scenarios
