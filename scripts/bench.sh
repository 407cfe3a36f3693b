#!/usr/bin/env bash
# scripts/bench.sh — `make bench`: adkproxy against the physical limit and its peers, written to
# BENCHMARKS.md as absolute numbers and as ratios to a minimal static net/http server.
#
# Everything runs on this machine's loopback interface and stops by itself: every target is started
# here on a free 127.0.0.1 port and stopped afterwards, every load run sends a fixed number of
# requests (after a warm-up) and gives up after -max-time. Each measurement is repeated
# BENCH_REPS times (default 3), interleaved across targets so that noise from other work on the
# machine spreads evenly, and the median is reported.
#
# Output: $OUT; raw results, logs and CPU profiles in bench/.work (rewritten each run); the 100k-interaction
# cassette (~650 MB) is cached in bench/.cache. Both folders are git-ignored; delete them to reclaim the disk.
# Knobs (environment): BENCH_REPS=3  BENCH_N=20000  BENCH_WARMUP=2000  BENCH_REC_N=2000  BENCH_SIM_REPS=5
#                      BENCH_BIG=100000  BENCH_OUT=BENCHMARKS.md  BENCH_WORK=bench/.work
# Needs Go, Node.js 20+ and npm (the peers proxay and talkback are installed with `npm ci` from
# bench/peers/package-lock.json, and ADK-JS's API server from e2e/adkserver's when it is missing),
# and ../shared/fixtures/gemini-traffic for the realistic cassettes.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
WORK=${BENCH_WORK:-$ROOT/bench/.work}
CACHE=$ROOT/bench/.cache
OUT=${BENCH_OUT:-$ROOT/BENCHMARKS.md}
REPS=${BENCH_REPS:-3}
# simulate's pairs wander more (0.84–1.10× over 5 pairs on an idle machine), so it takes more of them.
SIM_REPS=${BENCH_SIM_REPS:-5}
N=${BENCH_N:-20000}
WARM=${BENCH_WARMUP:-2000}
REC_N=${BENCH_REC_N:-2000}
BIG=${BENCH_BIG:-100000}
FIXTURES=${BENCH_FIXTURES:-$ROOT/../shared/fixtures/gemini-traffic}
RESULTS=$WORK/results.jsonl
BIGLABEL=$BIG
((BIG % 1000 == 0)) && BIGLABEL=$((BIG / 1000))k
BIN=$WORK/bin
LOGS=$WORK/logs
T0=$(date +%s)

log() { printf '[bench %4ds] %s\n' $(($(date +%s) - T0)) "$*" >&2; }

# --- processes this script started, stopped on any exit ------------------------------------------
PIDS=()
cleanup() {
	local pid
	for pid in "${PIDS[@]}"; do
		kill -TERM "$pid" 2>/dev/null || true
	done
	for pid in "${PIDS[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start NAME CMD...: run CMD in the background, logging to $LOGS/NAME.log; sets $PID.
start() {
	local name=$1
	shift
	"$@" >"$LOGS/$name.log" 2>&1 &
	PID=$!
	PIDS+=("$PID")
}

# stop PID: SIGTERM and wait (adkproxy writes its cassettes on the way out).
stop() {
	kill -TERM "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
	local keep=() p
	for p in "${PIDS[@]}"; do [[ $p == "$1" ]] || keep+=("$p"); done
	PIDS=("${keep[@]}")
}

# wait_addr FILE PID NAME: until FILE holds an address; fail if PID dies or 300 s pass.
wait_addr() {
	local i
	for ((i = 0; i < 30000; i++)); do
		if [[ -s $1 ]]; then
			ADDR=$(tr -d '[:space:]' <"$1")
			return 0
		fi
		kill -0 "$2" 2>/dev/null || { cat "$LOGS/$3.log" >&2; echo "bench: $3 exited before listening" >&2; exit 1; }
		sleep 0.01
	done
	echo "bench: $3 did not start" >&2
	exit 1
}

# wait_port PORT PID NAME: until 127.0.0.1:PORT accepts connections.
wait_port() {
	local i
	for ((i = 0; i < 3000; i++)); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then
			ADDR=127.0.0.1:$1
			return 0
		fi
		kill -0 "$2" 2>/dev/null || { cat "$LOGS/$3.log" >&2; echo "bench: $3 exited before listening" >&2; exit 1; }
		sleep 0.01
	done
	echo "bench: $3 did not start" >&2
	exit 1
}

loadgen() { "$BIN/loadgen" -out "$RESULTS" "$@"; }

# journal_syncs SET: the journal syncs per exchange (and the mean sync) the recording just stopped
# logged at exit, as a result line.
journal_syncs() {
	local line per ms
	line=$(grep 'msg="journal syncs"' "$LOGS/record.log" || true)
	per=$(sed -n 's/.*per_exchange=\([0-9.]*\).*/\1/p' <<<"$line")
	ms=$(sed -n 's/.*mean_sync_ms=\([0-9.]*\).*/\1/p' <<<"$line")
	[[ -n $per && -n $ms ]] || return 0
	printf '{"kind":"journal-syncs","tags":{"set":"%s"},"values":{"per_exchange":%s,"mean_sync_ms":%s}}\n' "$1" "$per" "$ms" >>"$RESULTS"
}

# --- build, install, fixtures ---------------------------------------------------------------------
rm -rf "$WORK"
mkdir -p "$WORK" "$BIN" "$LOGS" "$CACHE"
# adkproxy makes its local CA on first use: keep the benchmark's out of the user's home.
export ADKPROXY_CA_DIR=$WORK/ca
echo "$(cut -d' ' -f1-3 /proc/loadavg)" >"$WORK/loadavg-start"
log "building"
# bench/ is a module of its own (go-vcr stays out of the product's go.mod); it uses this tree's adkproxy.
(cd bench && go build -o "$BIN/" ./loadgen ./static ./govcr ./benchtool ./revproxy)
go build -o "$BIN/adkproxy" ./cmd/adkproxy
log "installing the peers (npm ci in bench/peers)"
(cd bench/peers && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
# simulate's floor is against ADK-JS's API server (docs/performance.md, "simulate against a static eval
# set"): a clean clone has no e2e/adkserver/node_modules until `make npm-deps`, so install it here.
if [ ! -d e2e/adkserver/node_modules ]; then
	log "installing ADK-JS's API server (npm ci in e2e/adkserver)"
	(cd e2e/adkserver && npm ci --no-audit --no-fund --loglevel=error >/dev/null) || log "npm ci in e2e/adkserver failed: simulate falls back to the in-process server, its floor not judged"
fi
[[ -d $FIXTURES ]] || { echo "bench: $FIXTURES is missing (set BENCH_FIXTURES)" >&2; exit 1; }

log "writing cassettes and tapes"
FX=$WORK/fixtures
"$BIN/benchtool" fixtures -dir "$FX"
"$BIN/govcr" -write "$FX/govcr/bench"
"$BIN/loadgen" -write-request "$FX/request-loadgen.json"
cmp -s "$FX/request.json" "$FX/request-loadgen.json"
"$BIN/benchtool" mix -dir "$WORK/mix10" -n 10 -mix 10
"$BIN/benchtool" traffic -dir "$WORK/traffic10k" -n 10000 -files 1 -fixtures "$FIXTURES"
"$BIN/benchtool" traffic -dir "$WORK/traffic10k-suite" -n 10000 -files 500 -fixtures "$FIXTURES"
# The 100k cassette takes about a minute to write; it is kept in bench/.cache and rewritten only when
# the tool that writes it (and so the cassette format) changed.
STAMP=$(sha256sum <"$BIN/benchtool" | cut -c1-16)-$BIG
if [[ ! -f $CACHE/big-$BIG/.stamp || $(cat "$CACHE/big-$BIG/.stamp") != "$STAMP" ]]; then
	log "writing the ${BIG}-interaction cassette (cached in bench/.cache)"
	rm -rf "$CACHE/big-$BIG"
	"$BIN/benchtool" mix -dir "$CACHE/big-$BIG" -n 10 -mix 10 -traffic $((BIG - 10)) -fixtures "$FIXTURES"
	echo "$STAMP" >"$CACHE/big-$BIG/.stamp"
fi

# --- 1. replay throughput and latency: static limit, adkproxy, peers -------------------------------
# start_target NAME: starts it on a free loopback port and sets $PID and $ADDR.
start_target() {
	local port
	case $1 in
	static)
		start static "$BIN/static" -stream whole -addr-file "$WORK/static.addr"
		wait_addr "$WORK/static.addr" "$PID" static ;;
	static-event)
		start static "$BIN/static" -stream event -addr-file "$WORK/static.addr"
		wait_addr "$WORK/static.addr" "$PID" static ;;
	adkproxy)
		rm -f "$WORK/adkproxy.addr"
		start adkproxy "$BIN/adkproxy" replay --allow-repeats --cassettes "$FX/adkproxy" \
			--listen 127.0.0.1:0 --addr-file "$WORK/adkproxy.addr" --log-level warn
		wait_addr "$WORK/adkproxy.addr" "$PID" adkproxy ;;
	proxay)
		port=$("$BIN/benchtool" freeport)
		start proxay node -r "$ROOT/bench/peers/loopback.js" "$ROOT/bench/peers/node_modules/proxay/dist/cli.js" \
			--mode replay --tapes-dir "$FX/proxay" --exact-request-matching -p "$port"
		wait_port "$port" "$PID" proxay ;;
	talkback)
		port=$("$BIN/benchtool" freeport)
		start talkback node -r "$ROOT/bench/peers/loopback.js" "$ROOT/bench/peers/talkback-server.js" "$port" "$FX/talkback"
		wait_port "$port" "$PID" talkback ;;
	go-vcr)
		start go-vcr "$BIN/govcr" -cassette "$FX/govcr/bench" -addr-file "$WORK/govcr.addr"
		wait_addr "$WORK/govcr.addr" "$PID" go-vcr ;;
	esac
	rm -f "$WORK"/*.addr
}

TARGETS=(static static-event adkproxy proxay talkback go-vcr)
for ((rep = 1; rep <= REPS; rep++)); do
	for target in "${TARGETS[@]}"; do
		log "replay throughput: $target, repetition $rep of $REPS"
		start_target "$target"
		# Before measuring: one request of each kind must get exactly the right bytes.
		"$BIN/loadgen" -url "http://$ADDR" -payload json -n 1 -warmup 0 2>/dev/null
		"$BIN/loadgen" -url "http://$ADDR" -payload sse -n 1 -warmup 0 2>/dev/null
		for payload in json sse; do
			for c in 1 16; do
				loadgen -url "http://$ADDR" -payload $payload -c $c -n "$N" -warmup "$WARM" \
					-tags "kind=replay,target=$target,payload=$payload,rep=$rep"
			done
		done
		stop "$PID"
	done
done

# --- 2. recording overhead: loadgen -> adkproxy record -> static, vs loadgen -> static --------------
# overwrite (the default) journals every exchange with an fsync before the client sees its end;
# passthrough forwards without recording, so the difference is the cost of keeping the exchange.
# bench/revproxy (httputil.ReverseProxy) is the reference forwarder passthrough is measured against.
# The tagged runs send X-Adkproxy-Invocation, which files every call in one invocation; without it each
# identical call opens a session of its own and placing a call scans all of them (the untagged run).
# The -distinct runs send a different 2 KB first turn with every call (untagged), each a new session, to
# ReverseProxy and to adkproxy in turn.
start_target static-event # the live API flushes each event
STATIC=$ADDR
STATIC_PID=$PID
for ((rep = 1; rep <= REPS; rep++)); do
	for payload in json sse; do
		for c in 1 16; do
			log "recording overhead: $payload c=$c, repetition $rep of $REPS"
			loadgen -url "http://$STATIC" -payload $payload -c $c -n "$REC_N" -warmup $((REC_N / 10)) \
				-tags "kind=record,target=direct,payload=$payload,rep=$rep"
			for variant in revproxy passthrough overwrite overwrite-untagged revproxy-distinct passthrough-distinct overwrite-distinct; do
				mode=${variant%-untagged}
				mode=${mode%-distinct}
				args=(-header "X-Adkproxy-Invocation: bench-$rep")
				[[ $variant == *-untagged ]] && args=()
				[[ $variant == *-distinct ]] && args=(-distinct)
				if [[ $mode == revproxy ]]; then
					# The reference forwarder: httputil.ReverseProxy, keeping nothing, a fresh one per run.
					target=$variant
					start revproxy "$BIN/revproxy" -upstream "http://$STATIC" -addr-file "$WORK/revproxy.addr"
					wait_addr "$WORK/revproxy.addr" "$PID" revproxy
					rm -f "$WORK/revproxy.addr"
					args=()
					[[ $variant == *-distinct ]] && args=(-distinct)
				else
					target=adkproxy-$variant
					dir=$WORK/record/$variant-$payload-$c-$rep
					# info: at exit the recording logs its journal syncs per exchange (read below).
					start record "$BIN/adkproxy" record --mode "$mode" --upstream "http://$STATIC" --cassettes "$dir" \
						--listen 127.0.0.1:0 --addr-file "$WORK/record.addr" --log-level info
					wait_addr "$WORK/record.addr" "$PID" record
					rm -f "$WORK/record.addr"
				fi
				loadgen -url "http://$ADDR" -payload $payload -c $c -n "$REC_N" -warmup $((REC_N / 10)) "${args[@]}" \
					-tags "kind=record,target=$target,payload=$payload,rep=$rep"
				stop "$PID"
				if [[ $mode == overwrite ]]; then
					journal_syncs "$variant-$payload-$c"
				fi
			done
		done
	done
done
stop "$STATIC_PID"
rm -rf "$WORK/record"

# --- 3. first SSE event while recording --------------------------------------------------------------
log "first SSE event delay while recording"
"$BIN/benchtool" ssedelay -bin "$BIN/adkproxy" -n 300 -warmup 30 -reps "$REPS" -out "$RESULTS" 2>>"$LOGS/ssedelay.log"

# --- 3b. peak RSS while recording one large answer --------------------------------------------------
log "peak RSS while recording 16 MiB and 64 MiB answers"
"$BIN/benchtool" recordrss -bin "$BIN/adkproxy" -sizes-mib 16,64 -reps "$REPS" -out "$RESULTS" 2>>"$LOGS/recordrss.log"

# --- 3c. peak RSS while loading a large cassette ------------------------------------------------
log "peak RSS of ls and replay --check loading 1, 64 and 512 MiB bodies and 15,000 and 200,000 small steps"
"$BIN/benchtool" loadrss -bin "$BIN/adkproxy" -sizes-mib 1,64,512 -steps 15000,200000 -reps "$REPS" -out "$RESULTS" 2>>"$LOGS/loadrss.log"

# --- 4. cold start with 10k realistic interactions ---------------------------------------------------
# replay --check reads every cassette before serving, as ls, score and diff read them all.
log "cold start: 10k interactions in one cassette"
"$BIN/benchtool" coldstart -bin "$BIN/adkproxy" -check -dir "$WORK/traffic10k" -reps "$REPS" \
	-tags "set=10k-one-file" -out "$RESULTS" 2>>"$LOGS/coldstart.log"
log "cold start: 10k interactions in 500 cassettes"
"$BIN/benchtool" coldstart -bin "$BIN/adkproxy" -check -dir "$WORK/traffic10k-suite" -reps "$REPS" \
	-tags "set=10k-500-files" -out "$RESULTS" 2>>"$LOGS/coldstart.log"
# A test's first answer: its one cassette alone in the folder, then beside the 499 others.
log "first answer: one cassette alone, and beside 499 others"
rm -rf "$WORK/alone" && mkdir -p "$WORK/alone/suite" && cp "$WORK/traffic10k-suite/suite/test-0000.yaml" "$WORK/alone/suite/"
"$BIN/benchtool" coldstart -bin "$BIN/adkproxy" -ask suite/test-0000 -dir "$WORK/alone" -reps "$REPS" \
	-tags "set=first-answer-alone" -out "$RESULTS" 2>>"$LOGS/coldstart.log"
"$BIN/benchtool" coldstart -bin "$BIN/adkproxy" -ask suite/test-0000 -dir "$WORK/traffic10k-suite" -reps "$REPS" \
	-tags "set=first-answer-among-500" -out "$RESULTS" 2>>"$LOGS/coldstart.log"

# --- 5. replay throughput with 100k recorded interactions vs 10, same request mix -------------------
log "large cassette: starting adkproxy on ${BIG} interactions (loading takes a while)"
"$BIN/benchtool" coldstart -bin "$BIN/adkproxy" -check -dir "$CACHE/big-$BIG" -reps 1 -tags "set=$BIGLABEL-one-file" \
	-out "$RESULTS" 2>>"$LOGS/coldstart.log"
start small "$BIN/adkproxy" replay --allow-repeats --cassettes "$WORK/mix10" --listen 127.0.0.1:0 \
	--addr-file "$WORK/small.addr" --log-level warn
SMALL_PID=$PID
wait_addr "$WORK/small.addr" "$PID" small
SMALL=$ADDR
start big "$BIN/adkproxy" replay --allow-repeats --cassettes "$CACHE/big-$BIG" --listen 127.0.0.1:0 \
	--addr-file "$WORK/big.addr" --log-level warn
BIG_PID=$PID
wait_addr "$WORK/big.addr" "$PID" big
BIGADDR=$ADDR
for ((rep = 1; rep <= REPS; rep++)); do
	for c in 1 16; do
		log "large cassette: c=$c, repetition $rep of $REPS"
		loadgen -url "http://$SMALL" -payload mix -mix 10 -c $c -n "$N" -warmup "$WARM" \
			-tags "kind=size,target=10,payload=mix,rep=$rep"
		loadgen -url "http://$BIGADDR" -payload mix -mix 10 -c $c -n "$N" -warmup "$WARM" \
			-tags "kind=size,target=$BIG,payload=mix,rep=$rep"
	done
done
stop "$BIG_PID"
stop "$SMALL_PID"

# --- 6. Go benchmarks and CPU profiles --------------------------------------------------------------
log "go test -bench (matcher, cassettes, proxy, adkproxytest, scoring, rundiff)"
go test -run '^$' -bench 'Fingerprint4KB|Canonical4KB|CanonicalAppend4KB|Analyze4KB|Mismatch' -benchmem -count "$REPS" ./matcher >"$WORK/gobench.txt"
go test -run '^$' -bench 'Marshal|Unmarshal|Save|Load' -benchmem -count "$REPS" ./cassettes >>"$WORK/gobench.txt"
go test -run '^$' -bench 'JournalAppend' -benchmem -count "$REPS" ./internal/engine/journal >>"$WORK/gobench.txt"
go test -run '^$' -bench 'ReplayJSON|ReplaySSE|NewReplay|Record|InterceptedReplay' -benchmem -count "$REPS" ./proxy >>"$WORK/gobench.txt"
go test -run '^$' -bench 'Start' -benchmem -count "$REPS" ./adkproxytest >>"$WORK/gobench.txt"
(cd bench && go test -run '^$' -bench 'LiveReplay' -count "$REPS" ./live) >>"$WORK/gobench.txt"
log "simulate: 100 replayed scenarios × 5 turns against ADK-JS's API server, and the same turns from a static eval set"
if [ -d e2e/adkserver/node_modules ]; then SIMSERVER=adkjs; else SIMSERVER=fake; log "simulate: no ADK-JS, the in-process server instead"; fi
(cd bench && go run ./simulate -adkproxy "$BIN/adkproxy" -server "$SIMSERVER" -reps "$SIM_REPS" -results "$RESULTS") >>"$LOGS/simulate.log" 2>&1
go test -run '^$' -bench 'Evaluate10kInvocations|Pair' -benchmem -count "$REPS" ./scoring >>"$WORK/gobench.txt"
go test -run '^$' -bench 'Diff10k' -benchmem -count "$REPS" ./internal/feature/report/rundiff >>"$WORK/gobench.txt"
log "CPU profiles of the replay request path and of replay start-up"
go test -run '^$' -bench 'ReplayJSON' -cpuprofile "$WORK/replay.cpu" -o "$WORK/proxy.test" ./proxy >/dev/null
go test -run '^$' -bench 'NewReplay/interactions=1000' -benchtime 5x -cpuprofile "$WORK/load.cpu" -o "$WORK/proxy.test" ./proxy >/dev/null
go tool pprof -top -cum -nodecount=25 -focus 'proxy.\(\*Server\).ServeHTTP' "$WORK/proxy.test" "$WORK/replay.cpu" 2>/dev/null >"$WORK/profile-replay.txt"
go tool pprof -top -cum -nodecount=25 -focus 'proxy\.New$|cassettes\.LoadDir' "$WORK/proxy.test" "$WORK/load.cpu" 2>/dev/null >"$WORK/profile-load.txt"

# --- report ------------------------------------------------------------------------------------------
echo "$(cut -d' ' -f1-3 /proc/loadavg)" >"$WORK/loadavg-end"
log "writing $OUT"
"$BIN/benchtool" report -results "$RESULTS" -gobench "$WORK/gobench.txt" \
	-profile-replay "$WORK/profile-replay.txt" -profile-load "$WORK/profile-load.txt" \
	-loadavg-start "$(cat "$WORK/loadavg-start")" -loadavg-end "$(cat "$WORK/loadavg-end")" \
	-duration $(($(date +%s) - T0)) -reps "$REPS" -n "$N" -warmup "$WARM" -rec-n "$REC_N" -big "$BIG" \
	-go-version "$(go version | cut -d' ' -f3-)" -out "$OUT"
# Keep the results, logs and profiles in $WORK; drop the generated cassettes (the 100k one stays cached).
rm -rf "$WORK/traffic10k" "$WORK/traffic10k-suite" "$WORK/alone" "$WORK/mix10" "$WORK/proxy.test"
log "done in $(($(date +%s) - T0)) s: $OUT"
