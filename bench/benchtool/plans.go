package main

import "os/exec"

func execOutput(name string, args ...string) (string, error) {
	out, err := exec.Command(name, args...).Output()
	return string(out), err
}

// The plans below are shown in BENCHMARKS.md for the floors that were not
// met. They come from the profiles the report shows next to them.

const planReplay = `**Replay request path.** A request whose bytes equal a recording's is found by a hash of those bytes (` + "`proxy.(*tape).fingerprint`" + `), its body is read into a recycled buffer of its declared size, and a match adds a pointer to the report: the handler is a few µs of the profile above, the rest is net/http and the kernel (two writes per answer, one or two reads per request). A request whose bytes differ from every recording (a reformatting SDK, changed ids) goes through the canonical scanner, about 20 µs for 4 KB. If a throughput floor is missed, first read the *spread* column: on a 2-core machine shared with the load generator and other work, a repetition can lose a third. What is left to take is small: the recorded headers could be copied once per recording instead of per answer, and the credential check (` + "`Redactor.Learn`" + `) allocates a little per request. Against the peers on SSE: proxay answers the 20-event stream at about 0.3× the static limit, so 3× proxay is about 0.9× of a server that does no work at all; adkproxy reaches 0.8–0.9× of it and spends the rest reading and hashing the 4 KB request, looking it up and noting the match, which is less than the run-to-run noise to shave. Sending the stream with a Content-Length (one body, as the peers do) instead of chunked made no difference in an A/B of 5 interleaved runs (c=16: 22.1k–29.6k req/s chunked, 22.4k–26.4k with a Content-Length), so replay keeps the chunked framing the live API uses.

Check with ` + "`go test -bench 'Replay' ./proxy`" + ` and ` + "`make bench`" + `.

**Large cassettes** (100k vs 10). The live heap after loading 100k interactions is about 570 MB, and each garbage collection marks all of it; collections come from per-request garbage, so the recycled request buffers above make them rare. If the ratio drops, ` + "`GODEBUG=gctrace=1`" + ` on the large proxy under load shows how often they run; the next step is a pointer-light index (fingerprint → position in one slice instead of maps of pointers) so there is less to mark.`

const planColdStart = `**Replay start-up.** A cassette file is cut between its top-level sessions as it is read (` + "`cassettes.splitSessions`" + `) and the pieces are parsed on every core, each dropped once its exchanges are out; the block literals that hold the bodies (three quarters of the bytes) are read beside yaml.v3 rather than by it (` + "`cassettes/literal.go`" + `); requests are fingerprinted on every core; garbage collection is paced by a limit of twice the YAML's size while loading. What remains is yaml.v3 on the structure, turning indented JSON bodies back into their wire bytes (` + "`encoding/json.Compact`" + `), and building the exchanges (the profile above). With fewer cores or a busier machine than the floor assumes, the next step is a load cache: the exchanges and fingerprints in a compact binary file keyed by the SHA-256 of the YAML they came from (in the user's cache folder, not beside the cassettes), read instead of the YAML when the hash matches. It helps repeated local runs, not a fresh CI machine, which is why it is not built yet.

Measure with ` + "`BenchmarkNewReplay`" + ` (proxy) and ` + "`BenchmarkLoad`/`BenchmarkUnmarshal`" + ` (cassettes), then ` + "`make bench`" + `.`

const planSSE = `**Plan for the first SSE event.** The recording path flushes each event as soon as it is complete (` + "`teeEvents`" + `), so a miss here means the proxy was starved of CPU or the event splitter waited for more bytes; profile ` + "`teeEvents`" + ` under load and check that the upstream transport is not buffering.`

const recordNote = `**Recording note.** Each forwarded model call is placed in its session by the organiser, which looks through the cassette's sessions for each call (` + "`conversation.(*Organizer).find`" + `, rules 1 and 3). A call that starts a new session (every new user turn, and here every one of the identical calls when no ` + "`X-Adkproxy-Invocation`" + ` is sent) makes the next call's search longer, so recording N such calls in one cassette costs O(N²): the *untagged* rows above, a few per cent at 2,000 calls. An index by agent key and by (user text, earlier turns) would help distinct conversations, but identical ones, as here, would all sit under one key and still be searched in turn; tagging invocations (the tagged rows) avoids the search entirely.`

const planRecordRSS = `**Plan for memory while recording.** The answer itself is held once (it is saved at exit); an answer without a Content-Length is read in chunks joined once (` + "`proxy.readAnswer`" + `), so reading peaks at twice the answer; a journal record of 1 MiB or more is encoded straight to the file, twice, rather than built in memory (` + "`cassettes.(*Journal).appendStreamed`" + `). A miss means one of these grew a copy: ` + "`go test -run '^$' -bench Record -memprofile`" + ` on a large answer and ` + "`go tool pprof -sample_index=alloc_space`" + ` show which.`
