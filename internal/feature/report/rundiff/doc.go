// Package rundiff compares two runs (recorded.Run, a golden one and a new
// one) and says what the agent does differently: it aligns cassettes by
// name, sessions by their first user turn then order, invocations in order
// (re-aligned by user text where one run has extra turns) and each agent's
// tool calls by longest common subsequence on name, then arguments; and it
// classifies every difference as a Change of a fixed Kind. Argument and
// result differences are JSON paths from matcher.DiffJSON, with ignore paths
// (matcher syntax) and scoring's argument matchers deciding which count;
// answers are compared with matcher.WordDiff and rouge.Rouge1.
//
// The Report it builds is what every view of a diff renders: WriteText,
// WriteJSON (schema.json), WriteMarkdown here, and the HTML page of package
// htmlreport.
package rundiff
