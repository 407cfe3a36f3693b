// The JSON view: the report as a stable document (schema.json).

package rundiff

import (
	"encoding/json"
	"io"
)

// WriteJSON writes the report as indented JSON, HTML characters
// unescaped; schema.json describes it.
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
