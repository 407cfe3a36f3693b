// Reporting the answers to ADK's tool confirmation requests to the
// adkproxy recording the agent's model traffic: ADK never sends them to the
// model, so the proxy learns them from the client that answered.

package adkapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/internal/base/outbound"
	"github.com/adkproxy/adkproxy/internal/base/proxyopt"
)

// ControlConfirmation is the proxy's path for reported answers.
const ControlConfirmation = proxyopt.ControlConfirmation

// ConfirmationReporter posts each answer to the adkproxy at URL before the
// answer goes to the agent, so the proxy has it when the tool's result
// reaches the model.
type ConfirmationReporter struct {
	// URL is the proxy's base URL (ADKPROXY_URL under adkproxy record).
	URL string
	// Token is the proxy's control token, if it has one.
	Token string
}

// ConfirmedCall reads an adk_request_confirmation call as the call it asks
// about: the tool's name and arguments, and the hint shown to the user.
func ConfirmedCall(fc *genai.FunctionCall) (name string, args map[string]any, hint string, ok bool) {
	if fc == nil || fc.Name != ConfirmationCall {
		return "", nil, "", false
	}
	orig, _ := fc.Args["originalFunctionCall"].(map[string]any)
	if orig == nil {
		orig, _ = fc.Args["original_function_call"].(map[string]any)
	}
	conf, _ := fc.Args["toolConfirmation"].(map[string]any)
	if conf == nil {
		conf, _ = fc.Args["tool_confirmation"].(map[string]any)
	}
	name, _ = orig["name"].(string)
	args, _ = orig["args"].(map[string]any)
	hint, _ = conf["hint"].(string)
	return name, args, hint, true
}

// Report posts the answer to each of calls, with its payload when not nil.
func (r *ConfirmationReporter) Report(ctx context.Context, calls []*genai.FunctionCall, approve, asJSONString bool, payload any) error {
	if r == nil || r.URL == "" {
		return nil
	}
	shape := "object"
	if asJSONString {
		shape = "json-string"
	}
	for _, fc := range calls {
		name, args, hint, _ := ConfirmedCall(fc)
		answer := map[string]any{"tool": name, "args": args, "confirmed": approve, "hint": hint, "shape": shape}
		if payload != nil {
			answer["payload"] = payload
		}
		body, err := json.Marshal(answer)
		if err != nil {
			return err
		}
		if err := r.post(ctx, body); err != nil {
			return fmt.Errorf("reporting the confirmation of %s to adkproxy: %w", name, err)
		}
	}
	return nil
}

func (r *ConfirmationReporter) post(ctx context.Context, body []byte) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(r.URL, "/")+ControlConfirmation, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if r.Token != "" {
		req.Header.Set("Authorization", "Bearer "+r.Token)
	}
	resp, err := DefaultHTTPClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		return fmt.Errorf("%s answered %s: %s", req.URL, outbound.Printable(resp.Status), outbound.Printable(strings.TrimSpace(string(msg))))
	}
	return nil
}
