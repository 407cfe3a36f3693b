package conformance

import (
	"errors"
	"strings"
	"testing"
)

// TestDeepNestingIsRefusedWithItsLine: a small corpus file whose arguments
// nest 9,900 levels deep (converting it took 1 GB and seconds, growing with
// the square of the depth) is refused at once with file:line.
func TestDeepNestingIsRefusedWithItsLine(t *testing.T) {
	deep := strings.Repeat(`{"a": `, 9900) + `1` + strings.Repeat(`}`, 9900)
	for _, parse := range []struct {
		name string
		run  func(string, []byte) error
	}{
		{"spec", func(f string, b []byte) error { _, err := ParseSpec(f, b); return err }},
	} {
		data := []byte("description: deep\nagent: a\ninitial_state:\n  x: " + deep + "\nuser_messages:\n  - text: hi\n")
		err := parse.run("case/"+parse.name+".yaml", data)
		var fe *FileError
		if !errors.As(err, &fe) || fe.Line == 0 || !strings.Contains(err.Error(), "case/"+parse.name+".yaml") || !strings.Contains(err.Error(), "levels deep") {
			t.Errorf("%s: %v; want a file:line error saying it nests too deeply", parse.name, err)
		}
	}
}
