// The records of a Live connection still open: its frames are journalled
// as they pass, and the connection's last record (the whole connection as
// kept) supersedes them.

package journalfile

import (
	"bytes"
	"encoding/json"
)

// LiveRecord is a journal record of a Live connection, told from an
// exchange record by its first key (IsLive); X is the exchange, F a frame.
// A connection's records share its LiveID. Frames records continue it:
// the first one in a journal carries Start (the upgrade's request and
// answer) and From 0, each later one the frames after From. The last
// record has Done and Kept, the whole connection as it was kept
// (scrubbed, its media in side files), which supersedes the frames
// records: the journal holds each frame at most twice, and loading takes
// the last word.
type LiveRecord[X, F any] struct {
	LiveID string
	Start  *X   `json:",omitempty"`
	From   int  `json:",omitempty"`
	Frames []F  `json:",omitempty"`
	Done   bool `json:",omitempty"`
	Kept   *X   `json:",omitempty"`
}

// liveHead starts every LiveRecord's JSON; an exchange's starts with its
// request.
var liveHead = []byte(`{"LiveID":`)

// IsLive tells a Live record from an exchange record.
func IsLive(payload []byte) bool { return bytes.HasPrefix(payload, liveHead) }

// KeptPrefix opens the last record of the Live connection id: the
// exchange's JSON follows, then "}". It is the LiveRecord with Done and
// Kept, written around an exchange encoded on its own.
func KeptPrefix(id string) string {
	quoted, _ := json.Marshal(id)
	return string(liveHead) + string(quoted) + `,"Done":true,"Kept":`
}
