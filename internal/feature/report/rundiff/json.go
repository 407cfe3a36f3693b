// The JSON view: the report as a stable document (schema.json).

package rundiff

import (
	"io"

	"github.com/adkproxy/adkproxy/internal/base/textfmt"
)

// WriteJSON writes the report as indented JSON, HTML characters
// unescaped; schema.json describes it.
func WriteJSON(w io.Writer, r *Report) error {
	b, err := textfmt.IndentedJSON(r)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}
