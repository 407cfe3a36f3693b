// Sending traces to a collector over OTLP/HTTP.

package otlpexport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	neturl "net/url"
	"strings"
	"unicode/utf8"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/outbound"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	statuspb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// ErrCollector is wrapped by Push's errors when the collector answered but
// did not take every span.
var ErrCollector = errors.New("the OTLP collector did not accept the traces")

// ContentType is what Push sends: binary protobuf, the encoding every
// OTLP/HTTP receiver accepts (some, such as Phoenix, take no JSON).
const ContentType = "application/x-protobuf"

// TracesURL is where Push sends for an endpoint: the endpoint's path +
// "/v1/traces", as OTEL_EXPORTER_OTLP_ENDPOINT is read, unless it already
// ends so; a query string stays a query string, after the path.
func TracesURL(endpoint string) string {
	u, err := neturl.Parse(endpoint)
	if err != nil {
		return strings.TrimRight(endpoint, "/") + "/v1/traces" // refused by the request, with a shown URL
	}
	path := strings.TrimRight(u.EscapedPath(), "/")
	if !strings.HasSuffix(path, "/v1/traces") {
		path += "/v1/traces"
	}
	u.RawPath = path
	if p, err := neturl.PathUnescape(path); err == nil {
		u.Path = p
	}
	return u.String()
}

// ShownURL is a URL as messages show it: without the password of its
// user info, and with the values of credential-named query parameters
// (token, key, signature…) replaced; a URL that does not parse is not
// shown at all.
func ShownURL(raw string) string {
	u, err := neturl.Parse(raw)
	if err != nil {
		return "(the OTLP endpoint, which is not a URL)"
	}
	if u.RawQuery != "" {
		pairs := strings.Split(u.RawQuery, "&")
		for i, pair := range pairs {
			name, _, _ := strings.Cut(pair, "=")
			if n, err := neturl.QueryUnescape(name); err == nil && cassettes.IsCredentialName(n) {
				pairs[i] = name + "=" + cassettes.Placeholder
			}
		}
		u.RawQuery = strings.Join(pairs, "&")
	}
	return u.Redacted()
}

// Push POSTs req to TracesURL(endpoint) as protobuf, in batches of at
// most MaxBatchBytes (see Batches), one after another. A status other than
// 2xx, or a 2xx answer that reports rejected spans, is an error wrapping
// ErrCollector naming the URL, the batch, the status and the collector's
// message; the batches after it are not sent.
func Push(ctx context.Context, client *http.Client, endpoint string, req *coltracepb.ExportTraceServiceRequest) error {
	batches := Batches(req, MaxBatchBytes)
	for i, b := range batches {
		if err := pushOne(ctx, client, TracesURL(endpoint), b); err != nil {
			if len(batches) > 1 {
				return fmt.Errorf("batch %d of %d: %w", i+1, len(batches), err)
			}
			return err
		}
	}
	return nil
}

func pushOne(ctx context.Context, client *http.Client, target string, req *coltracepb.ExportTraceServiceRequest) error {
	body, err := proto.Marshal(req)
	if err != nil {
		return err
	}
	url := ShownURL(target) // messages never show the password
	r, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		var ue *neturl.Error // it would show the URL as given
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("OTLP endpoint %s: %w", url, err)
	}
	r.Header.Set("Content-Type", ContentType)
	resp, err := client.Do(r)
	if err != nil {
		var ue *neturl.Error // it would name the URL a second time
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("sending traces to %s: %w", url, err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("reading the answer of %s: %w", url, err)
	}
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("%w: %s answered %s: %s", ErrCollector, url, resp.Status, outbound.Printable(collectorMessage(mediaType, answer)))
	}
	var out coltracepb.ExportTraceServiceResponse
	switch mediaType {
	case "application/x-protobuf":
		err = proto.Unmarshal(answer, &out)
	case "application/json":
		err = protojson.Unmarshal(answer, &out)
	}
	if p := out.GetPartialSuccess(); err == nil && p.GetRejectedSpans() > 0 {
		return fmt.Errorf("%w: %s rejected %d span(s): %s", ErrCollector, url, p.GetRejectedSpans(), outbound.Printable(p.GetErrorMessage()))
	}
	return nil
}

// collectorMessage reads an OTLP error answer: a google.rpc.Status in the
// answer's encoding, else the body as text (shown through
// outbound.Printable: it is server text).
func collectorMessage(mediaType string, body []byte) string {
	var st statuspb.Status
	switch {
	case mediaType == "application/x-protobuf" && proto.Unmarshal(body, &st) == nil && st.GetMessage() != "":
		return st.GetMessage()
	case mediaType == "application/json" && protojson.Unmarshal(body, &st) == nil && st.GetMessage() != "":
		return st.GetMessage()
	}
	text := strings.TrimSpace(string(body))
	if !utf8.ValidString(text) {
		return fmt.Sprintf("(%d bytes of %s)", len(body), mediaType)
	}
	if text == "" {
		return "(no message)"
	}
	if len(text) > 500 {
		text = strings.ToValidUTF8(text[:500], "") + "…"
	}
	return text
}
