// Reading the recording journal a killed recording left beside a cassette
// (internal/base/journalfile: its file; proxy's recorder writes it), and
// folding its exchanges into the cassette.

package cassettes

import (
	"encoding/json"
	"fmt"

	"github.com/adkproxy/adkproxy/internal/base/journalfile"
)

// journalState is what a leftover journal says about its cassette.
type journalState struct {
	name       string
	replace    bool
	incomplete bool // see journalfile.File.MarkIncomplete
	stale      bool // the YAML was saved after the journal began
	exchanges  []*Exchange
	torn       int // bytes of an unfinished last record, ignored
}

// readJournal reads the journal of the cassette at path, if any.
func readJournal(path string) (*journalState, error) {
	left, err := journalfile.Read(path)
	if left == nil || err != nil {
		return nil, err
	}
	st := &journalState{name: left.Name, replace: left.Replace, incomplete: left.Incomplete, stale: left.Stale}
	if !left.Stale {
		st.exchanges, st.torn = readRecords(left.Records)
	}
	return st, nil
}

// readRecords reads the records after a journal's header: the exchanges
// they hold, Live connections put together from their records (see
// journalfile.LiveRecord), and how many bytes at the end are not a whole
// record (the write a crash interrupted), which are ignored.
func readRecords(records []byte) (xs []*Exchange, torn int) {
	var lives liveFold
	torn = journalfile.Each(records, func(payload []byte) bool {
		if journalfile.IsLive(payload) {
			var ok bool
			xs, ok = lives.add(xs, payload)
			return ok
		}
		var x Exchange
		if json.Unmarshal(payload, &x) != nil {
			return false
		}
		xs = append(xs, withFrames(&x))
		return true
	})
	return lives.compact(xs), torn
}

// foldJournal adds a leftover journal's exchanges to c, the cassette as
// last saved (empty when it never was). A complete journal (a crash)
// extends or replaces it as its mode says. An incomplete one (a failed
// append or save) only adds: in extend mode its exchanges are appended, and
// in replace mode they stand in for a cassette that was never saved, but
// never replace a saved one. What is left out stays in the journal file
// and is named in c.Warnings.
func foldJournal(c *Cassette, j *journalState, journal string, saved bool) {
	switch {
	case !j.replace:
		c.Exchanges = append(c.Exchanges, j.exchanges...)
	case !j.incomplete || !saved:
		c.Exchanges = j.exchanges
	default:
		c.Warnings = append(c.Warnings, fmt.Sprintf(
			"%d exchange(s) in %s were not folded in: the recording that was to replace the cassette failed to save, so the cassette is as last saved. The journal is kept (the next recording of the cassette renames it to *.incomplete-<time>); re-record the cassette, or delete the journal",
			len(j.exchanges), journal))
		return
	}
	if j.incomplete {
		c.Warnings = append(c.Warnings, fmt.Sprintf(
			"%s is from a recording that failed to save: its %d exchange(s) were folded in, but some of that recording is missing. Re-record the cassette",
			journal, len(j.exchanges)))
	}
	if j.torn > 0 && j.incomplete {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%s ends in %d byte(s) of an unfinished record, ignored", journal, j.torn))
	}
	if c.Name == "" {
		c.Name = j.name
	}
}
