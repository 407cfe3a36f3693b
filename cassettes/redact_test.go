package cassettes

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
)

const (
	apiKey  = "AIzaSyDUMMY-key_0123456789abcdefghijk"
	token   = "ya29.a0AfH6SMBdummy-token_value"
	qKey    = "query-key-9876543210"
	qToken  = "query-token-abcdefgh"
	special = `p"a<s>s/w&o\rd=+?#1'q`
)

func learned(r *Redactor) []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []string
	for v := range r.secrets {
		out = append(out, v)
	}
	return out
}

func knows(r *Redactor, v string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	_, ok := r.secrets[v]
	return ok
}

func TestLearn(t *testing.T) {
	r := NewRedactor()
	r.Learn(http.Header{
		"X-Goog-Api-Key": {apiKey},
		"Authorization":  {"Bearer " + token},
	}, "alt=sse&key="+qKey+"&access_token="+qToken)
	for _, v := range []string{apiKey, token, qKey, qToken} {
		if !knows(r, v) {
			t.Errorf("did not learn %q; knows %q", v, learned(r))
		}
	}
	if knows(r, "Bearer "+token) || knows(r, "sse") {
		t.Errorf("learned too much: %q", learned(r))
	}
}

func TestLearnVariants(t *testing.T) {
	tests := []struct {
		header http.Header
		query  string
		want   string
	}{
		{http.Header{"Authorization": {"bearer " + token}}, "", token},
		{http.Header{"Authorization": {"BEARER  " + token}}, "", token},
		{http.Header{"Authorization": {"Token " + token}}, "", token},
		{http.Header{"Authorization": {"Basic dXNlcjpwYXNzd29yZA=="}}, "", "dXNlcjpwYXNzd29yZA=="},
		{http.Header{"Authorization": {token}}, "", token},
		{http.Header{"Proxy-Authorization": {"Bearer " + token}}, "", token},
		{http.Header{"X-Goog-Api-Key": {"", apiKey}}, "", apiKey},
		{nil, "k%65y=" + qKey, qKey},                                      // an encoded parameter name
		{nil, "key=" + url.QueryEscape(special+"long"), special + "long"}, // an encoded value
		{nil, "a=1&access_token=" + qToken + "&b=2", qToken},
		{nil, "%zz&key=" + qKey, qKey},                 // a broken pair does not hide the rest
		{nil, "a=1;b&key=" + qKey + ";x", qKey + ";x"}, // ";" does not hide a key (Query keeps no part of it)
		{nil, "key=" + strings.ReplaceAll(url.QueryEscape(special+"long"), "%2F", "%2f"), strings.ReplaceAll(url.QueryEscape(special+"long"), "%2F", "%2f")}, // the raw form too
	}
	for i, tt := range tests {
		r := NewRedactor()
		r.Learn(tt.header, tt.query)
		if !knows(r, tt.want) {
			t.Errorf("%d: did not learn %q; knows %q", i, tt.want, learned(r))
		}
	}
}

func TestLearnIgnoresShortValues(t *testing.T) {
	r := NewRedactor()
	r.Learn(http.Header{"X-Goog-Api-Key": {"short"}, "Authorization": {"Bearer 1234567"}}, "key=abc&access_token=")
	if got := learned(r); len(got) != 0 {
		t.Fatalf("learned %q", got)
	}
	if got := r.String("short 1234567 abc"); got != "short 1234567 abc" {
		t.Errorf("scrubbed innocent text: %q", got)
	}
	r.Learn(http.Header{"X-Goog-Api-Key": {"12345678"}}, "")
	if !knows(r, "12345678") {
		t.Error("an 8-character key was not learned")
	}
	// Given values are scrubbed whatever their length; the placeholder
	// itself never is.
	r = NewRedactor("abc", "", Placeholder)
	if got := r.String("xabcx " + Placeholder); got != "x"+Placeholder+"x "+Placeholder {
		t.Errorf("got %q", got)
	}
}

func TestZeroRedactorWorks(t *testing.T) {
	var r Redactor
	r.Learn(http.Header{"X-Goog-Api-Key": {apiKey}}, "")
	if got := r.String("k=" + apiKey); got != "k="+Placeholder {
		t.Errorf("got %q", got)
	}
}

func TestHeader(t *testing.T) {
	r := NewRedactor()
	r.Learn(http.Header{"X-Goog-Api-Key": {apiKey}}, "")
	in := http.Header{
		"X-Goog-Api-Key":      {apiKey},
		"Authorization":       {"Bearer " + token},
		"Proxy-Authorization": {"Basic abc"},
		"X-Goog-User-Project": {"my-project"},
		"Content-Type":        {"application/json"},
		"X-Echo":              {"k=" + apiKey, "plain"},
		"X-Drop-Me":           {"x"},
		"x-lower-drop":        {"y"},
	}
	out := r.Header(in, "x-drop-me", "X-Lower-Drop")
	want := http.Header{"Content-Type": {"application/json"}, "X-Echo": {"k=" + Placeholder, "plain"}}
	if fmt.Sprint(out) != fmt.Sprint(want) {
		t.Errorf("Header = %v, want %v", out, want)
	}
	if in.Get("X-Echo") != "k="+apiKey || in.Get("X-Goog-Api-Key") != apiKey {
		t.Error("Header changed its input")
	}
	for _, name := range []string{"x-goog-api-key", "AUTHORIZATION", "Proxy-Authorization", "x-goog-user-project", "Cookie", "set-cookie", "X-Api-Key"} {
		if !isCredentialHeader(name) {
			t.Errorf("isCredentialHeader(%q) = false", name)
		}
	}
	for _, name := range []string{"Content-Type", "X-Goog-Api-Client", "Cookie-Less"} {
		if isCredentialHeader(name) {
			t.Errorf("isCredentialHeader(%q) = true", name)
		}
	}
}

func TestQuery(t *testing.T) {
	r := NewRedactor()
	r.Learn(nil, "key="+qKey)
	tests := map[string]string{
		"":                                 "",
		"key=" + qKey:                      "",
		"alt=sse&key=" + qKey:              "alt=sse",
		"key=" + qKey + "&alt=sse":         "alt=sse",
		"b=2&key=x&a=1&access_token=y&c=3": "b=2&a=1&c=3",
		"z=1&%6Bey=" + qKey + "&y=2":       "z=1&y=2",
		"z=1&access%5Ftoken=t&y=2":         "z=1&y=2",
		"keys=1&akey=2&key_=3":             "keys=1&akey=2&key_=3",
		"echo=" + qKey + "&x=" + url.QueryEscape(qKey): "echo=" + Placeholder + "&x=" + Placeholder,
		"a=1&&b=2": "a=1&&b=2",
		"key":      "",
	}
	for in, want := range tests {
		if got := r.Query(in); got != want {
			t.Errorf("Query(%q) = %q, want %q", in, got, want)
		}
	}
}

// secretForms are the ways a secret can be written into a cassette.
func secretForms(t *testing.T, secret string) map[string][]byte {
	t.Helper()
	forms := map[string][]byte{
		"plain": []byte("before " + secret + " after"),
		"query": []byte("u=" + url.QueryEscape(secret) + "&x"),
		"path":  []byte("/p/" + url.PathEscape(secret) + "/q"),
		"json":  mustJSON(t, map[string]string{"k": "pre " + secret + " post"}),
		"json no html": func() []byte {
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			enc.Encode(map[string]string{"k": secret})
			return b.Bytes()
		}(),
		"json escaped slash": []byte(`{"k":"` + strings.ReplaceAll(strings.Trim(string(mustJSON(t, secret)), `"`), "/", `\/`) + `"}`),
	}
	for _, enc := range []struct {
		name string
		e    *base64.Encoding
	}{{"std", base64.StdEncoding}, {"url", base64.URLEncoding}, {"raw std", base64.RawStdEncoding}} {
		for shift := 0; shift < 3; shift++ {
			for tail := 0; tail < 3; tail++ {
				blob := append(append(bytes.Repeat([]byte{0xAB}, 7+shift), secret...), bytes.Repeat([]byte{0xCD}, 5+tail)...)
				forms[fmt.Sprintf("base64 %s shift %d tail %d", enc.name, shift, tail)] = []byte("data=" + enc.e.EncodeToString(blob) + ";")
			}
		}
	}
	return forms
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestAddLabelsTheSecretInErrors: a value given with Add is named by its
// caller's label (the CLI's "--redact value #N") when it would leak.
func TestAddLabelsTheSecretInErrors(t *testing.T) {
	r := NewRedactor()
	r.Add(apiKey, "--redact value #2")
	err := r.Scan([]byte("x: " + apiKey + "\n"))
	if !errors.Is(err, ErrSecretLeak) || !strings.Contains(err.Error(), "--redact value #2") || strings.Contains(err.Error(), apiKey) {
		t.Errorf("Scan = %v", err)
	}
	if got := r.Bytes([]byte(apiKey)); string(got) != Placeholder {
		t.Errorf("Bytes = %q, want the value scrubbed", got)
	}
}

func TestBytesAndScanFindEveryForm(t *testing.T) {
	for _, secret := range []string{apiKey, token, special, "plain-secret-with/slash", "ünïcödé-sécret-válue"} {
		r := NewRedactor(secret)
		for name, data := range secretForms(t, secret) {
			orig := append([]byte(nil), data...)
			err := r.Scan(data)
			if !errors.Is(err, ErrSecretLeak) {
				t.Errorf("%q %s: Scan = %v on %q", secret, name, err, data)
				continue
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("%q %s: the error shows the secret: %v", secret, name, err)
			}
			if !strings.Contains(err.Error(), "redaction value #1") || strings.Contains(err.Error(), "--redact") || !strings.Contains(err.Error(), "line 1") {
				t.Errorf("%q %s: the error does not name the carrier and line: %v", secret, name, err)
			}
			clean := r.Bytes(data)
			if !bytes.Equal(data, orig) {
				t.Fatalf("Bytes modified its input")
			}
			if err := r.Scan(clean); err != nil {
				t.Errorf("%q %s: still found after Bytes: %v\n%q", secret, name, err, clean)
			}
			if !bytes.Contains(clean, []byte(Placeholder)) {
				t.Errorf("%q %s: no placeholder in %q", secret, name, clean)
			}
		}
	}
}

func TestBytesLeavesOtherTextAlone(t *testing.T) {
	r := NewRedactor(apiKey)
	in := []byte(`{"text":"nothing secret here, not even AIzaSy"}`)
	out := r.Bytes(in)
	if !bytes.Equal(in, out) {
		t.Errorf("changed %q to %q", in, out)
	}
	if err := r.Scan(in); err != nil {
		t.Error(err)
	}
	if got := r.String(apiKey + apiKey); got != Placeholder+Placeholder {
		t.Errorf("got %q", got)
	}
}

func TestScanNamesCarrierAndLine(t *testing.T) {
	r := NewRedactor()
	r.Learn(http.Header{"X-Goog-Api-Key": {apiKey}, "Authorization": {"Bearer " + token}}, "access_token="+qToken)
	tests := []struct {
		secret, label string
	}{
		{apiKey, "the X-Goog-Api-Key header"},
		{token, "the Authorization header"},
		{qToken, "the ?access_token= parameter"},
	}
	for _, tt := range tests {
		data := []byte("line one\nline two\nthree " + tt.secret + "\nfour\n")
		err := r.Scan(data)
		if !errors.Is(err, ErrSecretLeak) {
			t.Fatalf("Scan = %v", err)
		}
		msg := err.Error()
		if !strings.Contains(msg, tt.label) || !strings.Contains(msg, "line 3") || strings.Contains(msg, tt.secret) {
			t.Errorf("error %q: want %q and line 3, and never the secret", msg, tt.label)
		}
	}
}

func TestScanOfAMarshalledCassette(t *testing.T) {
	// A secret inside a body stored as base64 or as escaped YAML text is
	// still found in the rendered file.
	r := NewRedactor(special)
	for _, body := range [][]byte{
		append([]byte{0xff, 0x00}, special...),                   // binary: base64
		[]byte("\"" + special + "\"\n\tline\n"),                  // text with quotes
		[]byte(`{"k":` + string(mustJSON(t, special)) + `}`),     // json
		[]byte("\x01" + special),                                 // control character: double quoted
		[]byte("{'" + special + "'}"),                            // YAML single quotes
		[]byte(`{"k":` + string(mustJSON(t, special)) + "}\x01"), // JSON in double quotes
	} {
		x := simpleExchange(string(body), "")
		x.Response.Header = http.Header{"X-Echo": {string(body)}}
		x.Response.Events = []Event{{Data: []byte("data: " + string(body) + "\n\n")}}
		data, err := Marshal(&Cassette{Exchanges: []*Exchange{x}})
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Scan(data); !errors.Is(err, ErrSecretLeak) {
			t.Errorf("secret in %q not found in\n%s", body, data)
		}
	}
}

func TestRedactExchange(t *testing.T) {
	r := NewRedactor("user-given-secret")
	x := &Exchange{
		Request: Request{
			Method: "POST",
			Path:   "/v1/projects/user-given-secret/x",
			Query:  "alt=sse&key=" + qKey,
			Header: http.Header{"X-Goog-Api-Key": {apiKey}, "Content-Type": {"application/json"}},
			Body:   []byte(`{"key":"` + apiKey + `"}`),
		},
		Response: Response{
			Status: 200,
			Header: http.Header{"X-Echo": {qKey}},
			Body:   []byte("body " + apiKey),
			Events: []Event{{Data: []byte("data: " + qKey + "\r\n\r\n")}},
		},
	}
	r.Learn(x.Request.Header, x.Request.Query)
	r.Exchange(x)
	data, err := Marshal(&Cassette{Exchanges: []*Exchange{x}})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Scan(data); err != nil {
		t.Fatalf("a redacted exchange still leaks: %v\n%s", err, data)
	}
	for _, s := range []string{apiKey, qKey, "user-given-secret"} {
		if bytes.Contains(data, []byte(s)) {
			t.Errorf("%q left in\n%s", s, data)
		}
	}
	if x.Request.Query != "alt=sse" || x.Request.Header.Get("X-Goog-Api-Key") != "" || x.Request.Path != "/v1/projects/"+Placeholder+"/x" {
		t.Errorf("request = %+v", x.Request)
	}
}

func TestRedactorConcurrentUse(t *testing.T) {
	r := NewRedactor("given-secret-value")
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				secret := fmt.Sprintf("secret-%d-%d-xxxxxxxx", g, i%20)
				r.Learn(http.Header{"X-Goog-Api-Key": {secret}}, "key=q"+secret)
				data := []byte("a " + secret + " b")
				if got := r.Bytes(data); bytes.Contains(got, []byte(secret)) {
					t.Errorf("not scrubbed after Learn: %q", got)
					return
				}
				if err := r.Scan(data); !errors.Is(err, ErrSecretLeak) {
					t.Errorf("Scan = %v", err)
					return
				}
				_ = r.Query("key=x&a=" + secret)
				_ = r.Header(http.Header{"X": {secret}})
			}
		}(g)
	}
	wg.Wait()
}

func TestSecretsInsideThePlaceholder(t *testing.T) {
	// A short --redact value that happens to be part of "REDACTED" must
	// not make every later Save fail or garble the placeholder.
	r := NewRedactor("ACT", "RED")
	got := r.String("RED team ACTS; REDACTED stays")
	if got != Placeholder+" team "+Placeholder+"S; "+Placeholder+" stays" {
		t.Errorf("got %q", got)
	}
	if err := r.Scan([]byte(got)); err != nil {
		t.Errorf("Scan of scrubbed text: %v", err)
	}
	if err := r.Scan([]byte("REDACTE and RED")); !errors.Is(err, ErrSecretLeak) {
		t.Errorf("Scan = %v, want a leak outside the placeholder", err)
	}
	if err := r.Scan([]byte("xREDACTEDACT")); !errors.Is(err, ErrSecretLeak) {
		t.Errorf("Scan = %v, want the ACT after the placeholder", err)
	}
}
