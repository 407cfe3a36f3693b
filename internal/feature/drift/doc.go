// Package drift is adkproxy drift: the agent run live, each step compared
// with its recording, and what changed sorted into the agent's own
// requests, the shape of the API's answers, and the behaviour, each with
// a severity. The recorded folder is only read.
package drift
