// Package testutil holds the few conventions every adkproxy test shares:
// where test output goes (so `make test` can scan it for leaked secrets)
// and how tests find ../shared and npm packages (skip locally, fail in CI).
package testutil

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// OutDir returns a fresh folder for a test's files. Under $ADKPROXY_TEST_OUT
// it is kept after the test, so the secret scan at the end of `make test`
// sees everything tests wrote; otherwise it is a temporary folder.
func OutDir(t testing.TB) string {
	t.Helper()
	root := os.Getenv("ADKPROXY_TEST_OUT")
	if root == "" {
		return t.TempDir()
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	name := strings.NewReplacer("/", "_", " ", "_").Replace(t.Name())
	dir, err := os.MkdirTemp(root, name+"-")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// InCI reports whether the tests run under CI (CI set to anything).
func InCI() bool { return os.Getenv("CI") != "" }

// RepoRoot is the repository's top folder.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// adkproxyBuild is the CLI built for this test binary, once.
var adkproxyBuild struct {
	once     sync.Once
	dir, bin string
	err      error
	// cleaned: Main runs, so the folder is removed when the tests end.
	cleaned bool
}

// BuildAdkproxy returns the path of the CLI built for tests that run it as
// a real process. It is built once per test binary, into a folder Main
// removes when the tests end; a test binary that uses it calls Main from
// its TestMain.
func BuildAdkproxy(t testing.TB) string {
	t.Helper()
	b := &adkproxyBuild
	if !b.cleaned {
		t.Fatal("testutil.BuildAdkproxy: call testutil.Main(m) from this package's TestMain, so the built binary is removed at the end")
	}
	b.once.Do(func() {
		if b.dir, b.err = os.MkdirTemp("", "adkproxy-bin-"); b.err != nil {
			return
		}
		b.bin = filepath.Join(b.dir, "adkproxy")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "go", "build", "-o", b.bin, "./cmd/adkproxy")
		cmd.Dir = RepoRoot()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build ./cmd/adkproxy: %v\n%s", err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.bin
}

// Main runs a test binary's tests, then removes what they shared (the CLI
// BuildAdkproxy built) and exits with their status. Call it from TestMain.
func Main(m *testing.M) {
	adkproxyBuild.cleaned = true
	code := m.Run()
	if adkproxyBuild.dir != "" {
		os.RemoveAll(adkproxyBuild.dir)
	}
	os.Exit(code)
}

// SharedDir returns ../shared beside the repository, or skips the test
// when it is missing, except under CI where a missing folder fails it.
func SharedDir(t testing.TB, sub ...string) string {
	t.Helper()
	dir := filepath.Join(append([]string{RepoRoot(), "..", "shared"}, sub...)...)
	if _, err := os.Stat(dir); err != nil {
		Require(t, "the shared reference folder "+dir)
	}
	return dir
}

// Require skips the test for a missing prerequisite, or fails it under CI,
// where every prerequisite must be installed.
func Require(t testing.TB, what string) {
	t.Helper()
	if InCI() {
		t.Fatalf("%s is missing; under CI=true this is a failure (.ci/run installs it)", what)
	}
	t.Skipf("%s is missing; skipped because CI is unset", what)
}

// NonLoopbackIP is an IPv4 address of this machine that is not loopback,
// for tests that need a peer which really is another machine to a server;
// without one the test is skipped (failed under CI).
func NonLoopbackIP(t testing.TB) net.IP {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() && n.IP.To4() != nil {
			return n.IP
		}
	}
	Require(t, "a non-loopback IPv4 address on this machine")
	return nil
}

// Secrets used by tests; `make test` scans ADKPROXY_TEST_OUT for each of them
// in every encoding. Each is long enough to be learned by the redactor.
const (
	SecretAPIKey    = "AIzaTEST-api-key-0123456789abcdefghijk"
	SecretBearer    = "ya29.TEST-bearer-token-0123456789"
	SecretQueryKey  = "AIzaTEST-query-key-9876543210zyxwv"
	SecretRedactArg = "customer-4711-secret-ssn"
	// Credentials a tool sends to its own API (cookie, X-Api-Key header,
	// ?token= parameter).
	SecretToolCookie = "session=TEST-tool-cookie-5551234"
	SecretToolHeader = "TEST-tool-x-api-key-8675309"
	SecretToolQuery  = "TEST-tool-query-token-4242"
)

// Secrets lists every secret value the tests use.
func Secrets() []string {
	return []string{SecretAPIKey, SecretBearer, SecretQueryKey, SecretRedactArg, SecretToolCookie, SecretToolHeader, SecretToolQuery}
}

// CountInDir counts the occurrences of needle in every file below dir.
func CountInDir(t testing.TB, dir, needle string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		n += strings.Count(string(b), needle)
		return err
	})
	if err != nil {
		t.Fatalf("scanning %s: %v", dir, err)
	}
	return n
}

// ModelEnv are the variables that decide where and how a Gemini client
// connects (endpoints, keys, Vertex AI, credentials): a child process a
// test starts gets none of the developer's.
var ModelEnv = map[string]bool{
	"GOOGLE_API_KEY": true, "GEMINI_API_KEY": true,
	"GOOGLE_GEMINI_BASE_URL": true, "GOOGLE_VERTEX_BASE_URL": true,
	"GOOGLE_GENAI_USE_VERTEXAI": true, "GOOGLE_CLOUD_PROJECT": true, "GOOGLE_CLOUD_LOCATION": true,
	"GOOGLE_APPLICATION_CREDENTIALS": true,
}
