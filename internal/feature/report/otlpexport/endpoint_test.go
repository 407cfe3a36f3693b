package otlpexport_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/adkproxy/adkproxy/internal/feature/report/otlpexport"
)

// TestEndpointKeepsItsQueryAndHidesItsPassword: /v1/traces goes after the
// endpoint's path, not after its query string, and no error shows the
// password of the endpoint's user info or a credential in its query.
func TestEndpointKeepsItsQueryAndHidesItsPassword(t *testing.T) {
	const password, key = "hunter2-otlp-password", "K-otlp-query-secret-123"
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, _ := r.BasicAuth()
		got = append(got, r.Method+" "+r.URL.Path+"?"+r.URL.RawQuery+" "+user+":"+pass)
		http.Error(w, "storage is full", http.StatusInternalServerError)
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	endpoint := "http://alice:" + password + "@" + host + "/prefix/?tenant=t1&api_key=" + key
	err := otlpexport.Push(context.Background(), http.DefaultClient, endpoint, builtRun(t))
	if len(got) != 1 || got[0] != "POST /prefix/v1/traces?tenant=t1&api_key="+key+" alice:"+password {
		t.Errorf("the collector got %q, want POST /prefix/v1/traces with the query and the user info", got)
	}
	if err == nil || strings.Contains(err.Error(), password) || strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "/prefix/v1/traces?tenant=t1") {
		t.Errorf("collector error %v: want the URL without the password or the key", err)
	}
	srv.Close()
	err = otlpexport.Push(context.Background(), http.DefaultClient, endpoint, builtRun(t))
	if err == nil || strings.Contains(err.Error(), password) || strings.Contains(err.Error(), key) {
		t.Errorf("transport error %v: want it without the password or the key", err)
	}
	if u := otlpexport.TracesURL("http://h:4318/base/v1/traces/?x=1"); u != "http://h:4318/base/v1/traces?x=1" {
		t.Errorf("TracesURL kept /v1/traces badly: %s", u)
	}
	if s := otlpexport.ShownURL("http://a:" + password + "@h:4318"); strings.Contains(s, password) {
		t.Errorf("ShownURL = %s", s)
	}
}
