// Package fake is adkproxy's scripted Gemini API ("adkproxy fake"): it
// answers generateContent, streamGenerateContent (SSE, one event per part),
// countTokens and Live from a script of turns, each model call of a turn
// taking the turn's next item in its session, sessions told apart as
// adkproxy places calls (internal/data/conversation). Items are answers (text,
// function calls), errors or faults (internal/data/fault). Its Live connection
// (LiveConn: frames in camelCase, binary frames out) serves the rule-based
// test fake's Live sessions too.
package fake
