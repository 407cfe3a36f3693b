// The file format's shared vocabulary: its version, event separators, and
// the units and ranges both the writer and the reader use.

package cassettes

import (
	"math"
	"time"
)

// formatVersion is the cassette format this package writes. Version 1 (a
// flat list of interactions) is still read.
const formatVersion = 2

// Standard SSE event separators. Gemini uses CRLF pairs; the LF form is
// stored with `sep: lf` so either replays byte for byte.
const (
	sepCRLF = "\r\n\r\n"
	sepLF   = "\n\n"
)

const dataPrefix = "data: "

// validStatus is the range of HTTP status codes a cassette holds: the
// classes HTTP defines (net/http would also carry 600-999, but nothing
// legitimate sends them).
func validStatus(code int) bool { return code >= 100 && code <= 599 }

// millis rounds to whole microseconds so files do not carry nanosecond noise.
func millis(d time.Duration) float64 {
	return math.Round(float64(d)/float64(time.Microsecond)) / 1000
}

func fromMillis(ms float64) time.Duration {
	return time.Duration(math.Round(ms * float64(time.Millisecond)))
}
