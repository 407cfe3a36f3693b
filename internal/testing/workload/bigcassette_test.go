package workload

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/wire"
)

// The generated cassettes are what cassettes.Marshal writes for what they
// hold (read back and written again, they are the same bytes), of about
// the size asked for, with one large body or as many steps as asked for.
func TestBigCassettesAreWhatMarshalWrites(t *testing.T) {
	check := func(t *testing.T, file []byte) *cassettes.Cassette {
		t.Helper()
		c, err := cassettes.Unmarshal("big.yaml", file)
		if err != nil {
			t.Fatalf("%v\n%.3000s", err, file)
		}
		c.Trajectories = wire.StepOf
		again, err := cassettes.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, file) {
			t.Fatalf("written again, the cassette differs:\n%.3000s\n---\n%.3000s", again, file)
		}
		return c
	}
	for _, style := range []BodyStyle{OneLongLine, ManyLines, DoubleQuoted} {
		t.Run(strconv.Itoa(int(style)), func(t *testing.T) {
			var buf bytes.Buffer
			n, err := LargeBodyCassette(&buf, 256<<10, style)
			if err != nil || n != int64(buf.Len()) {
				t.Fatalf("%d bytes, %v", n, err)
			}
			c := check(t, buf.Bytes())
			body := c.Exchanges[0].Response.Body
			if len(c.Exchanges) != 1 || len(body) < 100<<10 || n < 250<<10 || n > 260<<10 {
				t.Errorf("%d exchanges, a body of %d bytes in %d", len(c.Exchanges), len(body), n)
			}
		})
	}
	var buf bytes.Buffer
	n, err := ManyStepsCassette(&buf, 1000)
	if err != nil || n != int64(buf.Len()) {
		t.Fatalf("%d bytes, %v", n, err)
	}
	c := check(t, buf.Bytes())
	if last := c.Exchanges[len(c.Exchanges)-1]; len(c.Exchanges) != 1000 || last.Place.Session != 100 || last.Place.User == c.Exchanges[0].Place.User {
		t.Errorf("%d exchanges, the last %+v", len(c.Exchanges), last.Place)
	}
}
