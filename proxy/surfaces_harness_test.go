package proxy_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"github.com/adkproxy/adkproxy/proxy"
)

// fakeAPI is the scripted upstream on two hosts, as the real API has: the
// API host and the host upload chunks go to. It counts the connections
// each is opened.
type fakeAPI struct {
	*fakegemini.Handler
	api, upload *httptest.Server
	conns       atomic.Int64
}

func startFakeAPI(t *testing.T, opts fakegemini.ResourceOptions) *fakeAPI {
	t.Helper()
	f := &fakeAPI{Handler: &fakegemini.Handler{}}
	count := func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			f.conns.Add(1)
		}
	}
	f.api = httptest.NewUnstartedServer(f.Handler)
	f.upload = httptest.NewUnstartedServer(f.Handler)
	f.api.Config.ConnState, f.upload.Config.ConnState = count, count
	// Options are set before either server can serve a request reading them.
	opts.UploadURL = "http://" + f.upload.Listener.Addr().String()
	f.Handler.ResourceOptions = opts
	f.api.Start()
	f.upload.Start()
	t.Cleanup(f.stop)
	return f
}

func (f *fakeAPI) stop() {
	f.api.Close()
	f.upload.Close()
}

// recordThenReplay runs scenario against a recording proxy in front of
// the fake, then against a replaying one with the fake stopped, and
// requires the same output, no miss, no upstream connection in replay and
// no credential on disk. It returns the cassette folder and the output.
func recordThenReplay(t *testing.T, f *fakeAPI, scenario func(base string) string) (string, string) {
	t.Helper()
	dir := testutil.OutDir(t)
	rec := startProxy(t, proxy.Config{Mode: proxy.ModeRecord, Dir: dir, Upstream: mustURL(t, f.api.URL), VertexUpstream: mustURL(t, f.api.URL)})
	recorded := scenario(rec.URL)
	rec.stop(t)
	f.stop()
	before := f.conns.Load()
	if len(f.Requests()) == 0 {
		t.Fatal("the recording sent nothing upstream")
	}
	for _, secret := range []string{testutil.SecretAPIKey, testutil.SecretBearer, "fake-upload-key"} {
		if n := testutil.CountInDir(t, dir, secret); n != 0 {
			t.Errorf("a credential (%s) appears %d times in the cassettes", secret, n)
		}
	}
	rep := startProxy(t, proxy.Config{Mode: proxy.ModeReplay, Dir: dir})
	replayed := scenario(rep.URL)
	rep.stop(t)
	if replayed != recorded {
		t.Errorf("output differs on replay:\nrecorded %s\nreplayed %s", recorded, replayed)
	}
	if st := rep.Stats(); st.Unmatched != 0 || st.Mismatched != 0 || st.Replayed != rec.Stats().Recorded {
		t.Errorf("replay stats %+v, want all %d recordings replayed and none unmatched; misses: %+v", st, rec.Stats().Recorded, rep.Misses())
	}
	if n := f.conns.Load() - before; n != 0 {
		t.Errorf("replay opened %d upstream connections", n)
	}
	return dir, recorded
}
