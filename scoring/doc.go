// Package scoring turns captured Gemini exchanges into agent trajectories and
// scores them with metrics that reproduce Google ADK's evaluation results, so a
// replayed run can be judged exactly as ADK would judge it. The Porter stemmer
// and ROUGE-1 used by ADK's response-match metric live here.
package scoring
