package proxy_test

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
)

// TestToolCredentialsAreScrubbedByName: credentials a tool sends under
// names of its own (headers, query parameters, form and JSON body fields
// named like tokens, secrets, keys, passwords and signatures) never reach
// the cassette, the calls still replay with other values, and a header
// named by --keep-header is stored as sent.
func TestToolCredentialsAreScrubbedByName(t *testing.T) {
	dir := testutil.OutDir(t)
	local, public := newCA(t), newCA(t)
	tool := testutil.StartCounting(t, weather, public.Leaf)
	routes := []proxy.ConnectTo{{From: "weather.example.test:443", To: tool.Addr()}}
	headers := []string{"X-Auth-Token", "Api-Key", "Private-Token", "X-Amz-Security-Token", "X-Access-Token",
		"Ocp-Apim-Subscription-Key", "X-Goog-Iam-Authorization-Token", "X-Vault-Token"}
	params := []string{"sig", "X-Goog-Signature", "client_secret", "password"}
	fields := []string{"refresh_token", "client_secret", "api_key", "password"}
	secret := func(run, name string) string { return "TEST-" + run + "-" + strings.ToLower(name) + "-s3cr3t-value" }
	send := func(client *http.Client, run string) []string {
		var got []string
		q := url.Values{"city": {"Paris"}}
		for _, p := range params {
			q.Set(p, secret(run, p))
		}
		h := http.Header{"X-Trace-Tag": {"kept-" + run}}
		for _, name := range headers {
			h.Set(name, secret(run, name))
		}
		code, body := toolGet(t, client, "https://weather.example.test/v1/current?"+q.Encode(), h)
		got = append(got, body)
		if code != 200 {
			t.Errorf("GET with credentials (%s): %d %s", run, code, body)
		}
		form := url.Values{"grant_type": {"refresh_token"}}
		json := `{"grant_type":"password","nested":{`
		for i, f := range fields {
			form.Set(f, secret(run, "form-"+f))
			if i > 0 {
				json += ","
			}
			json += `"` + f + `":"` + secret(run, "json-"+f) + `"`
		}
		json += `}}`
		for _, b := range []struct{ ct, body string }{{"application/x-www-form-urlencoded", form.Encode()}, {"application/json", json}} {
			req, _ := http.NewRequest(http.MethodPost, "https://weather.example.test/oauth/token?city=Rome", strings.NewReader(b.body))
			req.Header.Set("Content-Type", b.ct)
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			out, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			got = append(got, string(out))
			if resp.StatusCode != 200 {
				t.Errorf("POST %s (%s): %d %s", b.ct, run, resp.StatusCode, out)
			}
		}
		return got
	}

	red := cassettes.NewRedactor()
	if err := red.KeepHeader("X-Trace-Tag"); err != nil {
		t.Fatal(err)
	}
	if err := red.KeepHeader("Authorization"); err == nil {
		t.Error("KeepHeader(Authorization) was accepted")
	}
	rec, recHTTP := serveForward(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, ConnectTo: routes, UpstreamRoots: poolOf(public),
		Forward: &proxy.ForwardProxy{Leaf: local.Leaf}, Redactor: red})
	recorded := send(proxiedClient(recHTTP.URL, poolOf(local)), "rec")
	recHTTP.Close()
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	for _, name := range append(append(append([]string{}, headers...), params...), prefixed("form-", fields)...) {
		if n := testutil.CountInDir(t, dir, secret("rec", name)); n != 0 {
			t.Errorf("the credential under %s reached the cassette %d time(s)", name, n)
		}
	}
	for _, f := range fields {
		if n := testutil.CountInDir(t, dir, secret("rec", "json-"+f)); n != 0 {
			t.Errorf("the JSON body field %s reached the cassette %d time(s)", f, n)
		}
	}
	if testutil.CountInDir(t, dir, "kept-rec") == 0 {
		t.Error("the --keep-header header X-Trace-Tag was not stored")
	}

	rep, repHTTP := serveForward(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir, Forward: &proxy.ForwardProxy{Leaf: local.Leaf}})
	replayed := send(proxiedClient(repHTTP.URL, poolOf(local)), "rep")
	repHTTP.Close()
	rep.Close()
	if strings.Join(replayed, "\n") != strings.Join(recorded, "\n") {
		t.Errorf("replay with other credentials answered\n%q\nrecorded\n%q", replayed, recorded)
	}
	if st := rep.Stats(); st.Replayed != 3 || st.Unmatched+st.Mismatched != 0 {
		t.Errorf("replay stats %+v, want the 3 calls replayed", st)
	}
}

func prefixed(p string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = p + n
	}
	return out
}

// TestCredentialNames: the rule that decides which names carry
// credentials, on the names tools use and on names that must stay.
func TestCredentialNames(t *testing.T) {
	for _, name := range []string{"X-Auth-Token", "Api-Key", "Private-Token", "X-Amz-Security-Token", "X-Access-Token",
		"Ocp-Apim-Subscription-Key", "X-Goog-Iam-Authorization-Token", "X-Vault-Token", "sig", "X-Goog-Signature",
		"client_secret", "password", "refresh_token", "api_key", "apiKey", "xAuthToken", "key", "X-Goog-Credential"} {
		if !cassettes.IsCredentialName(name) {
			t.Errorf("IsCredentialName(%q) = false", name)
		}
	}
	for _, name := range []string{"Content-Type", "X-Goog-Api-Client", "city", "author", "sort_key", "keys", "X-Goog-Upload-Url",
		"Sec-Websocket-Key", "User-Agent", "grant_type", "monkey", "tokenizer_name", "X-Trace-Tag"} {
		if cassettes.IsCredentialName(name) {
			t.Errorf("IsCredentialName(%q) = true", name)
		}
	}
}
