package wire

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
)

// TestShippedCassettesAreStable loads the cassettes shipped in examples/
// and checks that saving them again, trajectories read by StepOf, changes
// no byte: the writer, this reader and the files they wrote before agree.
func TestShippedCassettesAreStable(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "examples", "*", "cassettes", "*"+cassettes.Extension))
	if len(files) == 0 {
		t.Fatal("no shipped cassettes")
	}
	for _, f := range files {
		orig, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		c, err := cassettes.Unmarshal(f, orig)
		if err != nil {
			t.Fatal(err)
		}
		c.Trajectories = StepOf
		again, err := cassettes.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(orig, again) {
			t.Errorf("%s changes when saved again", f)
		}
	}
}
