// The errors adkproxy answers with itself, in the Gemini API's error shape
// so SDKs surface them as they surface the API's.

package proxy

import (
	"net/http"
	"strconv"

	"github.com/adkproxy/adkproxy/internal/base/proxyopt"
)

// Gemini error statuses (google.rpc.Code names) that adkproxy answers with.
const (
	statusFailedPrecondition = "FAILED_PRECONDITION"
	statusInvalidArgument    = "INVALID_ARGUMENT"
	statusUnavailable        = "UNAVAILABLE"
	statusInternal           = "INTERNAL"
	statusPermissionDenied   = "PERMISSION_DENIED"
	statusUnauthenticated    = "UNAUTHENTICATED"
	statusNotFound           = "NOT_FOUND"
)

// writeError answers with a Gemini-style error whose message starts with
// "adkproxy: " so it is never mistaken for the API's own.
func writeError(w http.ResponseWriter, code int, status, message string) {
	body := proxyopt.ErrorBody(code, status, message)
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=UTF-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("X-Adkproxy-Error", status)
	w.WriteHeader(code)
	w.Write(body)
}
