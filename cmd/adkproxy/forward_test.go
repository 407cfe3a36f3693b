package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/internal/base/ca"
	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// proxiedClients are wrapped commands that reach the network only through
// the forward proxy adkproxy gives them (HTTPS_PROXY and SSL_CERT_FILE),
// never through a base URL.
var proxiedClients = map[string]func() int{
	"genai-proxied": genaiProxiedClient,
	"tool-get":      toolGetClient,
	"proxy-env":     proxyEnvClient,
	"weather-agent": weatherAgentClient, // tool_test.go
}

// genaiProxiedClient asks the genai client, at its default host, one
// question and one streamed one, and prints the answers.
func genaiProxiedClient() int {
	os.Unsetenv("GOOGLE_GEMINI_BASE_URL") // only HTTPS_PROXY may lead to adkproxy
	os.Unsetenv("GOOGLE_VERTEX_BASE_URL")
	ctx := context.Background()
	client, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: os.Getenv("GOOGLE_API_KEY"), Backend: genai.BackendGeminiAPI})
	if err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
		return 2
	}
	resp, err := client.Models.GenerateContent(ctx, "gemini-2.5-flash", genai.Text("What is the capital of France?"), nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "client:", err)
		return 2
	}
	fmt.Println("generate:", resp.Text())
	for chunk, err := range client.Models.GenerateContentStream(ctx, "gemini-2.5-flash", genai.Text("Tell me a short story about a fox"), nil) {
		if err != nil {
			fmt.Fprintln(os.Stderr, "client:", err)
			return 2
		}
		fmt.Println("chunk:", chunk.Text())
	}
	return 0
}

// toolGetClient is a tool calling its API with net/http's defaults.
func toolGetClient() int {
	resp, err := http.Get(os.Getenv("TOOL_URL"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "tool:", err)
		return 2
	}
	body, _ := io.ReadAll(resp.Body)
	fmt.Printf("%d %s", resp.StatusCode, body)
	return 0
}

var proxyVars = []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy",
	"SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "GRPC_DEFAULT_SSL_ROOTS_FILE_PATH", "NODE_EXTRA_CA_CERTS"}

// proxyEnvClient prints the proxy and trust variables as JSON, and whether
// an HTTPS request through the proxy verifies the leaf it is shown against
// SSL_CERT_FILE's bundle (Go reads that variable) and, if curl is
// installed, against CURL_CA_BUNDLE with curl's own TLS stack.
func proxyEnvClient() int {
	out := map[string]string{}
	for _, k := range proxyVars {
		if v, ok := os.LookupEnv(k); ok {
			out[k] = v
		}
	}
	if _, ok := out["HTTPS_PROXY"]; ok {
		resp, err := http.Get("https://tool.example.test/check")
		if err != nil {
			out["go"] = "error: " + err.Error()
		} else {
			resp.Body.Close()
			out["go"] = fmt.Sprintf("%d issuer=%s", resp.StatusCode, resp.TLS.PeerCertificates[0].Issuer.CommonName)
		}
		if curl, err := exec.LookPath("curl"); err == nil {
			b, err := exec.Command(curl, "-sS", "-o", "/dev/null", "-w", "%{http_code}", "https://tool.example.test/check").CombinedOutput()
			out["curl"] = string(b)
			if err != nil {
				out["curl"] += " error: " + err.Error()
			}
		}
	}
	json.NewEncoder(os.Stdout).Encode(out)
	return 0
}

func newTestCA(t *testing.T) *ca.Authority {
	t.Helper()
	a, err := ca.Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestForwardProxyGenaiRecordReplay: the genai Go client, given only
// HTTPS_PROXY and SSL_CERT_FILE by adkproxy, records through interception
// (its default host routed by --connect-to to a TLS fake Gemini trusted
// by --upstream-ca) and replays with the upstream stopped, identically.
func TestForwardProxyGenaiRecordReplay(t *testing.T) {
	t.Parallel()
	dir, caDir := testutil.OutDir(t), filepath.Join(t.TempDir(), "ca")
	public := newTestCA(t)
	gemini := &fakegemini.Handler{}
	up := testutil.StartCounting(t, gemini, public.Leaf)
	env := []string{"ADKPROXY_CA_DIR=" + caDir}

	rec := adkproxy(t, append(env, "GOOGLE_API_KEY="+testutil.SecretAPIKey), append([]string{"record", "--cassettes", dir,
		"--connect-to", "generativelanguage.googleapis.com:443=" + up.Addr(),
		"--upstream-ca", public.CertPath}, self("genai-proxied")...)...)
	if rec.code != 0 || !strings.Contains(rec.stdout, "generate: ") || !strings.Contains(rec.stdout, "chunk: ") {
		t.Fatalf("record: exit %d\nstdout %s\nstderr %s", rec.code, rec.stdout, rec.stderr)
	}
	if !strings.Contains(rec.stderr, "created a local CA in "+caDir) {
		t.Errorf("record did not say it created the CA: %s", rec.stderr)
	}
	if len(gemini.Requests()) != 2 {
		t.Errorf("the fake Gemini saw %d requests, want 2", len(gemini.Requests()))
	}
	up.Close()
	if n := testutil.CountInDir(t, dir, testutil.SecretAPIKey); n != 0 {
		t.Errorf("the API key appears %d times in the cassettes", n)
	}

	rep := adkproxy(t, env, append([]string{"replay", "--cassettes", dir}, self("genai-proxied")...)...)
	if rep.code != 0 || rep.stdout != rec.stdout {
		t.Errorf("replay: exit %d\nstdout %q, recorded %q\nstderr %s", rep.code, rep.stdout, rec.stdout, rep.stderr)
	}
	if strings.Contains(rep.stderr, "created a local CA") {
		t.Errorf("replay created a second CA: %s", rep.stderr)
	}
}

// TestWrappedCommandProxyEnv: the wrapped command gets the proxy and trust
// variables, can verify the proxy's leaf with the bundle (Go and curl),
// the bundle is gone after the run, and --no-forward-proxy sets none.
func TestWrappedCommandProxyEnv(t *testing.T) {
	t.Parallel()
	caDir := filepath.Join(t.TempDir(), "ca")
	env := []string{"ADKPROXY_CA_DIR=" + caDir, "NO_PROXY=corp.example"}
	r := adkproxy(t, env, append([]string{"replay", "--cassettes", t.TempDir()}, self("proxy-env")...)...)
	var got map[string]string
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
	proxyURL := got["HTTPS_PROXY"]
	if !strings.HasPrefix(proxyURL, "http://127.0.0.1:") {
		t.Fatalf("HTTPS_PROXY=%q", proxyURL)
	}
	bundle := got["SSL_CERT_FILE"]
	for k, want := range map[string]string{
		"https_proxy": proxyURL, "HTTP_PROXY": proxyURL, "http_proxy": proxyURL,
		"NO_PROXY": "localhost,127.0.0.1,::1,corp.example", "no_proxy": "localhost,127.0.0.1,::1,corp.example",
		"REQUESTS_CA_BUNDLE": bundle, "CURL_CA_BUNDLE": bundle, "GRPC_DEFAULT_SSL_ROOTS_FILE_PATH": bundle,
		"NODE_EXTRA_CA_CERTS": filepath.Join(caDir, ca.CertFile),
	} {
		if got[k] != want {
			t.Errorf("%s=%q, want %q", k, got[k], want)
		}
	}
	if !strings.HasPrefix(got["go"], "502 issuer=adkproxy local CA") {
		t.Errorf("Go through the proxy with SSL_CERT_FILE: %q, want the 502 of replay over a verified connection", got["go"])
	}
	if _, err := exec.LookPath("curl"); err == nil && got["curl"] != "502" {
		t.Errorf("curl through the proxy with CURL_CA_BUNDLE: %q, want 502", got["curl"])
	}
	if _, err := os.Stat(bundle); !os.IsNotExist(err) {
		t.Errorf("the bundle %s is still there after the run (%v)", bundle, err)
	}
	if r.code != exitUnmatched {
		t.Errorf("exit %d, want 76 for the unrecorded tool request", r.code)
	}

	off := adkproxy(t, env, append([]string{"replay", "--no-forward-proxy", "--cassettes", t.TempDir()}, self("proxy-env")...)...)
	got = nil
	if err := json.Unmarshal([]byte(off.stdout), &got); err != nil || off.code != 0 {
		t.Fatalf("--no-forward-proxy: exit %d, stdout %q, stderr %s", off.code, off.stdout, off.stderr)
	}
	if len(got) != 1 || got["NO_PROXY"] != "corp.example" {
		t.Errorf("--no-forward-proxy still set %v", got)
	}
}

// TestSystemRootsInBundle: the bundle keeps the system roots, so a client
// whose SSL_CERT_FILE replaces its roots still trusts real hosts.
func TestSystemRootsInBundle(t *testing.T) {
	t.Parallel()
	roots, from := ca.SystemRoots()
	if roots == nil {
		t.Skip("this system has no PEM bundle of roots")
	}
	a := newTestCA(t)
	b, err := a.WriteBundle()
	if err != nil {
		t.Fatal(err)
	}
	defer b.Remove()
	data, _ := os.ReadFile(b.Path)
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(data) || !strings.Contains(string(data), string(roots)) || !strings.HasSuffix(string(data), string(a.PEM)) {
		t.Errorf("bundle %s lacks the roots of %s or the CA", b.Path, from)
	}
}

func TestForwardProxyFlagErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"record", "--connect-to", "example.com=1.2.3.4:1"}, `--connect-to: rule "example.com=1.2.3.4:1": "example.com" is not HOST:PORT; want HOST:PORT=ADDR`},
		{[]string{"record", "--upstream-ca", "/no/such/ca.pem"}, "--upstream-ca: upstream CA file /no/such/ca.pem: cannot read it"},
		{[]string{"record", "--upstream-ca", "forward_test.go"}, "--upstream-ca: upstream CA file forward_test.go: no PEM certificate"},
		{[]string{"replay", "--tunnel", "https://auth.example.com"}, "--tunnel"},
		{[]string{"replay", "--tunnel", "a.example.com", "--no-forward-proxy"}, "--no-forward-proxy"},
	} {
		r := adkproxy(t, nil, append(c.args, "--cassettes", t.TempDir())...)
		if r.code != exitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 64 mentioning %q", c.args, r.code, r.stderr, c.want)
		}
	}
	r := adkproxy(t, []string{"ADKPROXY_CONNECT_TO=nonsense"}, "record", "--cassettes", t.TempDir())
	if r.code != exitUsage || !strings.Contains(r.stderr, "nonsense") {
		t.Errorf("ADKPROXY_CONNECT_TO=nonsense: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestServeWithoutCommandForwardProxy: served without a command, adkproxy
// prints the proxy variables and the CA, intercepts HTTPS with a leaf that
// CA verifies, and refuses --tunnel hosts in replay.
func TestServeWithoutCommandForwardProxy(t *testing.T) {
	t.Parallel()
	caDir := filepath.Join(t.TempDir(), "ca")
	addrFile := filepath.Join(t.TempDir(), "addr")
	cmd := adkproxyCmd(t, []string{"ADKPROXY_CA_DIR=" + caDir, "ADKPROXY_TUNNEL=*.tunnel.test"},
		"replay", "--cassettes", t.TempDir(), "--listen", "127.0.0.1:0", "--addr-file", addrFile)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := waitForFile(t, addrFile)
	authority, err := ca.Load(caDir)
	if err != nil {
		t.Fatalf("replay did not create the CA it serves with: %v", err)
	}
	trust := x509.NewCertPool()
	trust.AddCert(authority.Cert)
	proxyURL, _ := url.Parse("http://" + addr)
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxyURL), TLSClientConfig: &tls.Config{RootCAs: trust}}}

	resp, err := client.Get("https://api.example.test/v1/things")
	if err != nil {
		t.Fatalf("intercepted request: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway {
		t.Errorf("intercepted request in replay: %d, want 502", resp.StatusCode)
	}
	if _, err := client.Get("https://oauth.tunnel.test/token"); err == nil || !strings.Contains(err.Error(), "Bad Gateway") {
		t.Errorf("--tunnel host in replay: %v, want the CONNECT refused", err)
	}
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	for _, want := range []string{"export HTTPS_PROXY=http://" + addr, "export NODE_EXTRA_CA_CERTS=" + authority.CertPath} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
		}
	}
}
