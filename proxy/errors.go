// The errors adkproxy answers with itself, in the Gemini API's error shape
// so SDKs surface them as they surface the API's.

package proxy

import (
	"encoding/json"
	"net/http"
	"strconv"
)

// Gemini error statuses (google.rpc.Code names) that adkproxy answers with.
const (
	statusFailedPrecondition = "FAILED_PRECONDITION"
	statusInvalidArgument    = "INVALID_ARGUMENT"
	statusUnavailable        = "UNAVAILABLE"
	statusInternal           = "INTERNAL"
	statusPermissionDenied   = "PERMISSION_DENIED"
	statusNotFound           = "NOT_FOUND"
)

// geminiError is the body shape of every error the Gemini API returns, so
// SDKs surface adkproxy's message the same way they surface the API's.
type geminiError struct {
	Error struct {
		Code    int    `json:"code"`
		Status  string `json:"status"`
		Message string `json:"message"`
	} `json:"error"`
}

// writeError answers with a Gemini-style error whose message starts with
// "adkproxy: " so it is never mistaken for the API's own.
func writeError(w http.ResponseWriter, code int, status, message string) {
	body := errorBody(code, status, message)
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=UTF-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("X-Adkproxy-Error", status)
	w.WriteHeader(code)
	w.Write(body)
}

// errorBody is the JSON of a Gemini-style error from adkproxy.
func errorBody(code int, status, message string) []byte {
	var e geminiError
	e.Error.Code = code
	e.Error.Status = status
	e.Error.Message = "adkproxy: " + message
	body, _ := json.MarshalIndent(e, "", "  ")
	return append(body, '\n')
}
