// Switching the recording proxy's cassette (drive --samples): the control
// API's PUT /_adkproxy/cassette, through the same URL and token as the
// confirmation reports.

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

	"github.com/adkproxy/adkproxy/internal/base/proxyopt"
)

// Cassette is the proxy's cassette for requests that name none.
func (r *ConfirmationReporter) Cassette(ctx context.Context) (string, error) {
	var out struct{ Name string }
	err := r.control(ctx, http.MethodGet, nil, &out)
	return out.Name, err
}

// UseCassette makes name the proxy's cassette for requests that name none.
func (r *ConfirmationReporter) UseCassette(ctx context.Context, name string) error {
	body, err := json.Marshal(map[string]string{"name": name})
	if err != nil {
		return err
	}
	return r.control(ctx, http.MethodPut, body, nil)
}

func (r *ConfirmationReporter) control(ctx context.Context, method string, body []byte, out any) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(r.URL, "/")+proxyopt.ControlCassette, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if r.Token != "" {
		req.Header.Set("Authorization", "Bearer "+r.Token)
	}
	resp, err := DefaultHTTPClient.Do(req)
	if err != nil {
		return fmt.Errorf("adkproxy at %s: %w", r.URL, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("adkproxy at %s: %s %s answered %d: %s", r.URL, method, proxyopt.ControlCassette, resp.StatusCode, strings.TrimSpace(string(b)))
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}
