// The agent's turn durations of a recording run, kept beside the simulated
// user's cassettes so that a replay reports the times the recording
// measured and its outputs come out byte-identical.

package simulate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/textfmt"
	"github.com/adkproxy/adkproxy/internal/base/userfile"
)

// TimingsSuffix ends the name of a case's timings file: <case>.timings.json
// beside the case's cassette <case>.yaml in the --sim-cassettes folder.
// It is not a cassette (replay loads *.yaml only), so it takes no part in
// request matching.
const TimingsSuffix = ".timings.json"

// timingsDoc is a timings file: the agent's answer to each user turn, in
// order, as Go durations ("1.204513s"), which read back exactly.
type timingsDoc struct {
	Case       string   `json:"case"`
	AgentTurns []string `json:"agent_turns"`
}

// TimingsPath is the timings file of case id in dir.
func TimingsPath(dir, id string) (string, error) {
	name, err := cassettes.FileName(id)
	if err != nil {
		return "", fmt.Errorf("case %q: %w", id, err)
	}
	return filepath.Join(dir, strings.TrimSuffix(name, cassettes.Extension)+TimingsSuffix), nil
}

// SaveTimings writes each transcript's agent turn durations into dir (the
// recording run's --sim-cassettes folder), replacing the files atomically.
func SaveTimings(dir string, ts []*Transcript) error {
	for _, t := range ts {
		doc := timingsDoc{Case: t.Case.Key(), AgentTurns: []string{}}
		for _, turn := range t.Turns {
			doc.AgentTurns = append(doc.AgentTurns, turn.Elapsed.String())
		}
		path, err := TimingsPath(dir, t.Case.Key())
		if err != nil {
			return err
		}
		b, err := textfmt.IndentedJSON(doc)
		if err != nil {
			return err
		}
		if err := writeFile(path, b); err != nil {
			return err
		}
	}
	return nil
}

// UseRecordedTimings reads the timings files of dir into the transcripts
// of a replay: each turn's Recorded duration is then what the outputs
// report (Turn.Duration), and its own Elapsed goes into eval_summary.json's
// replay_latency. A case without a timings file (recorded before they were
// kept) keeps its measured times; a turn beyond the recording too.
func UseRecordedTimings(dir string, ts []*Transcript) error {
	for _, t := range ts {
		path, err := TimingsPath(dir, t.Case.Key())
		if err != nil {
			return err
		}
		data, err := userfile.Read(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		var doc timingsDoc
		if err := json.Unmarshal(data, &doc); err != nil {
			return fmt.Errorf("%s: %w (delete it, or record the simulated user again)", path, err)
		}
		t.Replayed = true
		for i, s := range doc.AgentTurns {
			d, err := time.ParseDuration(s)
			if err != nil || d < 0 {
				return fmt.Errorf("%s: agent_turns[%d] %q is not a duration such as \"1.5s\" (delete the file, or record the simulated user again)", path, i, s)
			}
			if i < len(t.Turns) {
				t.Turns[i].Recorded = d
			}
		}
	}
	return nil
}

// Duration is the agent's answer to the turn as the outputs report it:
// the recording run's time in a replay that has it, else the time measured.
func (t *Turn) Duration() time.Duration {
	if t.Recorded > 0 {
		return t.Recorded
	}
	return t.Elapsed
}
