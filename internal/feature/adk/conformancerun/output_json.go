// The json output format: the whole Result, every finding included.

package conformancerun

import (
	"encoding/json"
	"io"
)

// jsonResult adds the counts to the Result.
type jsonResult struct {
	*Result
	Counts  map[Status]int `json:"counts"`
	Summary string         `json:"summary"`
}

// WriteJSON writes r as one indented JSON object: corpus, server_cmd,
// profile, cases (name, agent, description, status, reason, calls with
// their key and findings — group and matcher differences —, notes),
// counts and summary.
func WriteJSON(w io.Writer, r *Result) error {
	b, err := json.MarshalIndent(jsonResult{Result: r, Counts: r.Counts(), Summary: Summary(r)}, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
