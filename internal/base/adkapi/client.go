// The client: the base URL and prefix of one API server, and its requests.

package adkapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/adkproxy/adkproxy/internal/base/outbound"
)

// Client talks to one ADK API server. The zero HTTPClient means the
// default outbound policy (outbound.Policy{}): the server is not trusted.
type Client struct {
	// BaseURL is the server's scheme and host, e.g. http://127.0.0.1:8000.
	BaseURL string
	// Prefix is where the API is mounted: "" for ADK Python and ADK-JS,
	// "/api" for ADK Go's default launcher.
	Prefix string
	// HTTPClient sends the requests; nil means DefaultHTTPClient.
	HTTPClient *http.Client
}

// New returns a client for the server at baseURL with the API under prefix.
// It checks that baseURL is an absolute http(s) URL.
func New(baseURL, prefix string) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("adkapi: server URL %q is not an absolute http:// or https:// URL", baseURL)
	}
	if prefix != "" && !strings.HasPrefix(prefix, "/") {
		prefix = "/" + prefix
	}
	return &Client{BaseURL: strings.TrimRight(baseURL, "/"), Prefix: strings.TrimRight(prefix, "/")}, nil
}

// ErrBadResponse is wrapped by every error about a 2xx answer the client
// could not read (not JSON, not the expected shape).
var ErrBadResponse = errors.New("unreadable answer")

// HTTPError is a non-2xx answer from the server.
type HTTPError struct {
	Method, URL string
	Status      int
	// Body is the start of the server's answer, for the message.
	Body string
}

func (e *HTTPError) Error() string {
	msg := fmt.Sprintf("adkapi: %s %s: HTTP %d %s", e.Method, e.URL, e.Status, http.StatusText(e.Status))
	if e.Body != "" {
		msg += ": " + e.Body
	}
	if e.Status == http.StatusNotFound {
		msg += " (wrong --prefix? ADK Go serves the API under /api, ADK Python and ADK-JS at the root)"
	}
	return msg
}

// maxErrorBody is how much of an error answer goes into the message.
const maxErrorBody = 2 << 10

// DefaultHTTPClient obeys the default outbound policy: answers capped,
// silences timed out, no redirect to another origin.
var DefaultHTTPClient = outbound.Policy{}.Client()

func (c *Client) httpClient() *http.Client {
	if c.HTTPClient != nil {
		return c.HTTPClient
	}
	return DefaultHTTPClient
}

// url joins the base URL, the prefix and path segments, escaping each
// segment (app, user and session names may hold anything).
func (c *Client) url(segments ...string) string {
	var b strings.Builder
	b.WriteString(c.BaseURL)
	b.WriteString(c.Prefix)
	for _, s := range segments {
		b.WriteByte('/')
		b.WriteString(url.PathEscape(s))
	}
	return b.String()
}

// do sends one request with an optional JSON body and returns the response
// when its status is 2xx; otherwise an *HTTPError (the body is closed).
func (c *Client) do(ctx context.Context, method, u string, body any) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("adkapi: %s %s: encoding the request: %w", method, u, err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, fmt.Errorf("adkapi: %s %s: %w", method, u, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.httpClient().Do(req)
	if err != nil {
		return nil, fmt.Errorf("adkapi: %s %s: %w", method, u, err)
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		return nil, &HTTPError{Method: method, URL: u, Status: resp.StatusCode, Body: outbound.Printable(strings.TrimSpace(string(b)))}
	}
	return resp, nil
}

// getJSON sends a request and decodes its JSON answer into out.
func (c *Client) getJSON(ctx context.Context, method, u string, body, out any) error {
	resp, err := c.do(ctx, method, u, body)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("adkapi: %s %s: reading the answer: %w", method, u, err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("adkapi: %s %s: %w: %v; the server answered: %s", method, u, ErrBadResponse, err, quote(b))
	}
	return nil
}

// quote is the start of an answer, for an error message.
func quote(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > maxErrorBody {
		s = s[:maxErrorBody] + "…"
	}
	s = outbound.Printable(s)
	if s == "" {
		return "(an empty body)"
	}
	return s
}

// Health checks that the server answers GET {prefix}/health with a 2xx
// status (ADK-JS and ADK Python's web server do; where a server has no
// health route, ListApps is the portable check).
func (c *Client) Health(ctx context.Context) error {
	resp, err := c.do(ctx, http.MethodGet, c.url("health"), nil)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}

// ListApps returns the names of the apps the server serves
// (GET {prefix}/list-apps).
func (c *Client) ListApps(ctx context.Context) ([]string, error) {
	var apps []string
	if err := c.getJSON(ctx, http.MethodGet, c.url("list-apps"), nil, &apps); err != nil {
		return nil, err
	}
	return apps, nil
}
