// Package scorediff owns comparing two scoring runs from their result
// files (ADK's EvalSetResult, as 'adkproxy score --format json' writes it):
// per criterion the mean score and the pass rate of each run and their
// change, for 'adkproxy diff BASELINE.json EXP.json'.
package scorediff
