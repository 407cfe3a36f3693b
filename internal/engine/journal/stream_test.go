package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
)

// TestWriteExchangeJSONIsMarshal: the streamed encoding is byte for byte
// what json.Marshal gives, which is what the journal reader decodes.
func TestWriteExchangeJSONIsMarshal(t *testing.T) {
	for i, x := range []*cassettes.Exchange{
		{},
		journalExchange(1),
		{
			Request: cassettes.Request{Method: "POST", Path: "/p<&>", Query: "a=1&b=\u2028", Header: http.Header{"B": {"2", "<3>"}, "A": {}},
				Body: []byte{}},
			Response: cassettes.Response{Status: 503, Body: []byte{0, 1, 2, 0xff}, End: cassettes.EndReset, Latency: time.Second,
				Events: []cassettes.Event{{Data: []byte("data: {}\r\n\r\n"), After: 3}, {Data: nil}}},
			Place: &cassettes.Place{Session: 2, Invocation: 3, Tag: "t", User: "\"quoted\"", Step: 1, Agent: "a"},
		},
		{Response: cassettes.Response{Events: []cassettes.Event{}}},
	} {
		want, err := json.Marshal(x)
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := writeExchangeJSON(&got, x); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("exchange %d:\n got %s\nwant %s", i, got.Bytes(), want)
		}
	}
}

// TestLargeExchangeJournalledAndRecovered: an exchange over the streaming
// threshold is journalled and read back whole; one holding a secret, even
// far into its body, is refused and nothing is written.
func TestLargeExchangeJournalledAndRecovered(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	secret := "AIzaSyTHISISNOTAREALKEYBUTLOOKSLIKEONE1"
	j, err := Open(path, "c", true, cassettes.NewRedactor(secret))
	if err != nil {
		t.Fatal(err)
	}
	big := journalExchange(1)
	big.Response.Body = []byte(`{"text":"` + strings.Repeat("z", 3<<20) + `"}`)
	if err := j.Append(big); err != nil {
		t.Fatal(err)
	}
	leaky := journalExchange(2)
	leaky.Response.Body = []byte(strings.Repeat("y", 2<<20+7) + secret)
	if err := j.Append(leaky); !errors.Is(err, cassettes.ErrSecretLeak) {
		t.Fatalf("a secret at the end of a large body: %v; want ErrSecretLeak", err)
	}
	j.Close()
	c, err := cassettes.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Exchanges) != 1 || !bytes.Equal(c.Exchanges[0].Response.Body, big.Response.Body) {
		t.Fatalf("recovered %d exchanges; want the large one, whole", len(c.Exchanges))
	}
}
