// Command simulate measures what adkproxy simulate's simulator layer
// costs. It records N scenarios of T turns once (the simulated user's
// model is a scripted loopback upstream), then, against a fresh API server
// per run, times REPS interleaved pairs of runs with -parallel P:
//
//   - simulated: adkproxy simulate --scenarios, the simulated user replayed
//     from its cassettes, no key;
//   - static: adkproxy simulate --evalset with the eval set the recording
//     wrote, the same user turns sent with no simulator at all.
//
// -server adkjs (the default) is ADK-JS's api_server (e2e/adkserver, `make
// npm-deps`) serving the corpus agent tools_agent_002 under adkproxy
// record, then replay — the agent's model calls answered by
// internal/fakegemini when recording — so each turn costs what a real
// server costs; -server fake is the in-process internal/fakeadk, whose
// turns cost almost nothing, which shows the simulator's cost alone.
//
// It prints the median wall times (each run's own, from eval_summary.json),
// their ratio (the issue asks ≤ 1.1), and the p50 of the simulator's time
// per simulated turn (prompt rendering plus the replayed model call).
//
// -vs OTHER plays the same two runs with a second adkproxy binary in each
// pair too (order alternating), on the same recording, and prints its
// figures and the per-pair ratio of the two simulated runs: a change
// measured against the binary before it.
//
//	simulate -adkproxy BIN [-vs OTHER] [-server adkjs|fake] [-scenarios 100] [-turns 5] [-parallel 8] [-reps 3] [-work DIR]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/adkproxy/adkproxy/internal/feature/adk/adkjs"
	"github.com/adkproxy/adkproxy/internal/testing/adkjstest"
	"github.com/adkproxy/adkproxy/internal/testing/fakeadk"
	"github.com/adkproxy/adkproxy/internal/testing/fakegemini"
	"github.com/adkproxy/adkproxy/internal/testing/fakejudge"
)

func main() {
	bin := flag.String("adkproxy", "", "the adkproxy `BINARY` to measure (required)")
	n := flag.Int("scenarios", 100, "`N` scenarios")
	turns := flag.Int("turns", 5, "user `TURNS` per scenario (max_allowed_invocations)")
	parallel := flag.Int("parallel", 8, "conversations at once (`P`)")
	reps := flag.Int("reps", 3, "`REPS` pairs of runs; medians are reported")
	work := flag.String("work", "", "`DIR` for the files (default: a temporary folder, removed)")
	kind := flag.String("server", "adkjs", "the API server: `adkjs` (ADK-JS under adkproxy record/replay) or fake (in process)")
	resultsFile := flag.String("results", "", "append each pair as a JSON line to `FILE` (make bench's results, read by benchtool report)")
	vs := flag.String("vs", "", "a second adkproxy `BINARY` played in each pair too (the one before a change)")
	flag.Parse()
	if *bin == "" {
		log.Fatal("-adkproxy BINARY is required")
	}
	dir := *work
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			log.Fatal(err)
		}
	} else {
		d, err := os.MkdirTemp("", "simbench")
		if err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(d)
		dir = d
	}
	b := &bench{bin: *bin, dir: dir, parallel: *parallel, app: "weather"}
	switch *kind {
	case "fake":
		b.start = func(bool) (string, func()) { return serve(&fakeadk.Server{Weather: "sunny"}), func() {} }
	case "adkjs":
		b.app = "tools_agent_002"
		b.start = b.adkjs()
	default:
		log.Fatalf("-server %q: want adkjs or fake", *kind)
	}
	b.prepare(*n, *turns)

	// Record once: the simulated user from a scripted loopback upstream.
	user := serve(&fakejudge.Handler{Script: func(string, int) fakejudge.Reply { return fakejudge.Reply{Text: "Check bob@example.com"} }})
	b.run(*bin, "recorded", true, []string{"GEMINI_API_KEY=bench-key"}, "--scenarios", b.scenarios, "--sim-base-url", user)

	var sim, static, userP50, otherSim, otherStatic, otherP50 []float64
	var cpu, otherCPU [][2]float64 // simulated, static
	for i := range *reps {
		// Alternate which goes first, so warm-up and drift fall on both.
		play := func(bin, name string) (s, st summary) {
			simulated := func() summary {
				return b.run(bin, fmt.Sprintf("%s-simulated-%d", name, i), false, nil, "--scenarios", b.scenarios)
			}
			staticRun := func() summary {
				return b.run(bin, fmt.Sprintf("%s-static-%d", name, i), false, nil, "--evalset", filepath.Join(dir, "recorded", "simulated.evalset.json"))
			}
			if i%2 == 0 {
				s, st = simulated(), staticRun()
			} else {
				st, s = staticRun(), simulated()
			}
			return s, st
		}
		var s, st, o, ost summary
		switch {
		case *vs == "":
			s, st = play(*bin, "this")
		case i%2 == 0:
			s, st = play(*bin, "this")
			o, ost = play(*vs, "other")
		default:
			o, ost = play(*vs, "other")
			s, st = play(*bin, "this")
		}
		sim, static = append(sim, s.WallSec), append(static, st.WallSec)
		userP50 = append(userP50, s.UserLatency.P50MS)
		cpu, otherCPU = append(cpu, [2]float64{s.CPUSec, st.CPUSec}), append(otherCPU, [2]float64{o.CPUSec, ost.CPUSec})
		otherSim, otherStatic = append(otherSim, o.WallSec), append(otherStatic, ost.WallSec)
		otherP50 = append(otherP50, o.UserLatency.P50MS)
		if *resultsFile != "" {
			appendResult(*resultsFile, map[string]any{"kind": "simulate", "tags": map[string]string{"server": *kind},
				"values": map[string]float64{"simulated_sec": s.WallSec, "static_sec": st.WallSec, "ratio": s.WallSec / st.WallSec,
					"user_turn_p50_ms": s.UserLatency.P50MS, "scenarios": float64(*n), "turns": float64(*turns), "parallel": float64(*parallel)}})
		}
	}
	fmt.Printf("server %s; scenarios %d × %d turns, --parallel %d, %d reps (medians)\n", *kind, *n, *turns, *parallel, *reps)
	printFigures(*bin, sim, static, userP50, cpu)
	if *vs != "" {
		printFigures(*vs, otherSim, otherStatic, otherP50, otherCPU)
		fmt.Printf("simulated run, %s / %s: wall %s\n", *bin, *vs, pairRatios(sim, otherSim))
		fmt.Printf("  CPU %s\n", pairRatios(column(cpu, 0), column(otherCPU, 0)))
	}
}

// printFigures prints one binary's medians and its per-pair ratios.
func printFigures(bin string, sim, static, userP50 []float64, cpu [][2]float64) {
	ms, mst := median(sim), median(static)
	fmt.Printf("%s:\n", bin)
	fmt.Printf("  simulated (replayed user): %.3f s\n", ms)
	fmt.Printf("  static (recorded turns):   %.3f s\n", mst)
	fmt.Printf("  ratio: %.3f× (target ≤ 1.1×); per pair: %s\n", ms/mst, pairRatios(sim, static))
	fmt.Printf("  simulator time per simulated turn, p50: %.3f ms\n", median(userP50))
	fmt.Printf("  CPU of the whole process: simulated %.3f s, static %.3f s; per pair: %s\n",
		median(column(cpu, 0)), median(column(cpu, 1)), pairRatios(column(cpu, 0), column(cpu, 1)))
}

// column is the i-th figure of each pair.
func column(pairs [][2]float64, i int) []float64 {
	var out []float64
	for _, p := range pairs {
		out = append(out, p[i])
	}
	return out
}

// pairRatios is a[i]/b[i] for each pair, and their median.
func pairRatios(a, b []float64) string {
	var pairs []string
	var ratios []float64
	for i := range a {
		ratios = append(ratios, a[i]/b[i])
		pairs = append(pairs, fmt.Sprintf("%.2f", a[i]/b[i]))
	}
	return fmt.Sprintf("%s (median %.2f)", strings.Join(pairs, " "), median(ratios))
}

type bench struct {
	bin, dir, app, scenarios, input, config string
	parallel                                int
	// start starts a fresh API server (recording the agent's traffic, or
	// replaying it) and returns its URL and how to stop it.
	start func(record bool) (url string, stop func())
}

// prepare writes the scenarios, session input and config files.
func (b *bench) prepare(n, turns int) {
	var list []string
	for i := range n {
		list = append(list, fmt.Sprintf(`{"starting_prompt": "Is user%d@example.com valid", "conversation_plan": "Keep asking to check more addresses (%d)."}`, i, i))
	}
	b.scenarios = b.write("scenarios.json", `{"scenarios": [`+strings.Join(list, ",\n")+`]}`)
	b.input = b.write("session_input.json", `{"app_name": "`+b.app+`", "user_id": "bench", "state": {}}`)
	b.config = b.write("test_config.json", fmt.Sprintf(`{"user_simulator_config": {"max_allowed_invocations": %d, "include_function_calls": true}}`, turns))
}

func (b *bench) write(name, body string) string {
	p := filepath.Join(b.dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		log.Fatal(err)
	}
	return p
}

type summary struct {
	Scenarios int     `json:"scenarios"`
	Failed    int     `json:"failed"`
	WallSec   float64 `json:"wall_sec"`
	// CPUSec is the whole process's user and system time: on a busy
	// machine it moves less than the wall time does.
	CPUSec      float64 `json:"-"`
	UserLatency struct {
		P50MS float64 `json:"p50_ms"`
	} `json:"simulated_user_latency"`
}

// run plays the cases against a fresh loopback API server and returns the
// run's summary.
func (b *bench) run(bin, name string, record bool, env []string, args ...string) summary {
	server, stop := b.start(record)
	defer stop()
	out := filepath.Join(b.dir, name)
	cmd := exec.Command(bin, append([]string{"simulate", "--server", server, "--app", b.app,
		"--session-input", b.input, "--config", b.config, "--parallel", fmt.Sprint(b.parallel), "--out", out,
		"--sim-cassettes", filepath.Join(b.dir, "sim")}, args...)...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}, env...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		log.Fatalf("%s: %v\n%s", name, err, msg)
	}
	data, err := os.ReadFile(filepath.Join(out, "eval_summary.json"))
	if err != nil {
		log.Fatal(err)
	}
	var s summary
	if err := json.Unmarshal(data, &s); err != nil {
		log.Fatal(err)
	}
	s.CPUSec = (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	if s.Failed > 0 {
		log.Fatalf("%s: %d of %d conversations failed (see %s)", name, s.Failed, s.Scenarios, out)
	}
	return s
}

// appendResult appends one measurement line in the shape benchtool's
// results reader takes (Measurement: kind, tags, values).
func appendResult(path string, m map[string]any) {
	line, err := json.Marshal(m)
	if err != nil {
		log.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}

// serve serves h on a free loopback port for the rest of the program.
func serve(h http.Handler) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	go http.Serve(ln, h)
	return "http://" + ln.Addr().String()
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// adkjs returns a start function for ADK-JS's api_server serving the
// corpus agent tools_agent_002 under adkproxy record (the agent's model is
// internal/fakegemini) or replay.
func (b *bench) adkjs() func(bool) (string, func()) {
	root := os.Getenv("ADKPROXY_ROOT") // else the nearest folder up from here holding e2e/adkserver
	if root == "" {
		dir, err := os.Getwd()
		if err != nil {
			log.Fatal(err)
		}
		for root = dir; ; root = filepath.Dir(root) {
			if _, err := os.Stat(filepath.Join(root, adkjstest.PackageDir)); err == nil || root == filepath.Dir(root) {
				break
			}
		}
	}
	entry := filepath.Join(root, adkjstest.PackageDir, "node_modules", "@google", "adk-devtools", "dist", "esm", "cli_entrypoint.js")
	if _, err := os.Stat(entry); err != nil {
		log.Fatalf("%s: %v (run 'make npm-deps', or -server fake)", entry, err)
	}
	corpus := filepath.Join(root, "..", "shared", "fixtures", "adk-conformance", "agents")
	agents := filepath.Join(b.dir, "agents")
	if err := adkjs.WriteAgentsDir(corpus, agents, "tools_agent_002"); err != nil {
		log.Fatal(err)
	}
	upstream := serve(&fakegemini.Handler{})
	cassettes := filepath.Join(b.dir, "agent")
	return func(record bool) (string, func()) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			log.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		args := []string{"replay", "--cassettes", cassettes}
		env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "ADKPROXY_CA_DIR=" + filepath.Join(b.dir, "ca")}
		if record {
			args = []string{"record", "--cassettes", cassettes, "--upstream", upstream}
			env = append(env, "GOOGLE_API_KEY=bench-key")
		}
		args = append(args, "--", "node", entry, "api_server", agents, "-h", "127.0.0.1", "-p", fmt.Sprint(port))
		cmd := exec.Command(b.bin, args...)
		cmd.Env = env
		logFile, _ := os.Create(filepath.Join(b.dir, fmt.Sprintf("server-%d.log", port)))
		cmd.Stdout, cmd.Stderr = logFile, logFile
		if err := cmd.Start(); err != nil {
			log.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		url := fmt.Sprintf("http://127.0.0.1:%d", port)
		if err := adkjstest.WaitHealthy(context.Background(), url, exited); err != nil {
			log.Fatalf("%v (log: %s)", err, logFile.Name())
		}
		return url, func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-exited:
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
				<-exited
			}
			logFile.Close()
		}
	}
}
