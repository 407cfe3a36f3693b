// The page of 'adkproxy drift --format html': diff's page of the recorded
// run against the live one, under the drift's own lines.

package htmlreport

import (
	"io"

	"github.com/adkproxy/adkproxy/internal/feature/report/rundiff"
)

// WriteDrift writes diff's page of r with title, and lines (the drift's
// summary and its changes, one a line) on top.
func WriteDrift(w io.Writer, title string, lines []string, r *rundiff.Report) error {
	p := diffPage(r)
	p.Title = title
	p.Summary = append(lines, p.Summary...)
	return write(w, p)
}
