// Package adkproxytest runs adkproxy inside Go tests, one cassette per
// test, in the spirit of go-vcr's recorder:
//
//	func TestWeatherAgent(t *testing.T) {
//		p := adkproxytest.Start(t, "testdata/cassettes")
//		client, err := genai.NewClient(t.Context(), p.ClientConfig())
//		...
//	}
//
// Start serves the same handler as the adkproxy CLI (proxy.New, served by
// proxy.Server.HTTPServer) on a loopback port, with the cassette named after
// t.Name(): testdata/cassettes/TestWeatherAgent.yaml, and one file per
// subtest below a folder named after the test. It replays, strictly and with
// no network, unless ADKPROXY_RECORD=1 (or the Record option) asks it to
// record from the Gemini API with the key in GOOGLE_API_KEY or
// GEMINI_API_KEY (from a proxy.Config.Upstream, set with Configure, that
// is not Google's, such as a fake API, no key is needed). When the test
// ends it writes what it recorded and fails the test with adkproxy's own summary if a request differed from its
// recording, had none, or a recording was never requested
// (proxy.Server.Failure), and, in strict replay, when the test's cassette
// exists but no request reached it.
//
// While recording, the tests hold the cassettes folder's recording lock,
// as 'adkproxy record' does: another process recording into the folder
// makes Start fail (the tests of one process share the lock).
//
// Record once, commit the cassettes, and the test then runs offline:
//
//	ADKPROXY_RECORD=1 GOOGLE_API_KEY=... go test -run TestWeatherAgent ./...
//	go test ./...
//
// New and Proxy.Close are the same without a testing.TB, for code that
// manages its own lifetime (TestMain, examples).
package adkproxytest
