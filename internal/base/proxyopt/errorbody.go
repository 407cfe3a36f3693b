// The body of the errors adkproxy answers with itself, in the Gemini API's
// error shape, shared by the Server's answers and the connection limit's.

package proxyopt

import "encoding/json"

// geminiError is the body shape of every error the Gemini API returns, so
// SDKs surface adkproxy's message the same way they surface the API's.
type geminiError struct {
	Error struct {
		Code    int    `json:"code"`
		Status  string `json:"status"`
		Message string `json:"message"`
	} `json:"error"`
}

// ErrorBody is the JSON of a Gemini-style error from adkproxy: its message
// starts with "adkproxy: " so it is never mistaken for the API's own.
func ErrorBody(code int, status, message string) []byte {
	var e geminiError
	e.Error.Code = code
	e.Error.Status = status
	e.Error.Message = "adkproxy: " + message
	body, _ := json.MarshalIndent(e, "", "  ")
	return append(body, '\n')
}
