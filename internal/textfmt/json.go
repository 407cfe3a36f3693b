package textfmt

import (
	"bytes"
	"encoding/json"
)

// IndentedJSON is v as adkproxy writes every JSON file and document: two
// spaces of indentation, "<", ">" and "&" left as they are (ADK's files and
// people's prompts hold them), and a final newline.
func IndentedJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
