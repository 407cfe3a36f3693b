package main

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
	"gopkg.in/yaml.v3"
)

// No container engine runs where the tests run, so TestDockerfile does
// what the image would, from the Dockerfile itself: it builds the binary
// with the Dockerfile's own `go build` line (ARGs and flags included), checks
// it is static, starts it with the image's ENV, ENTRYPOINT and CMD, and runs
// the HEALTHCHECK command against it.
func TestDockerfile(t *testing.T) {
	t.Parallel()
	root := testutil.RepoRoot()
	df := parseDockerfile(t, filepath.Join(root, "Dockerfile"))

	if from := df.last("FROM"); !strings.Contains(from, "distroless/static") && from != "scratch" {
		t.Errorf("final stage FROM %s: want distroless/static or scratch", from)
	}
	if user := df.last("USER"); user == "" || strings.HasPrefix(user, "root") || strings.HasPrefix(user, "0") {
		t.Errorf("USER %q: the image must not run as root", user)
	}
	env := df.env()
	_, port, err := net.SplitHostPort(env["ADKPROXY_LISTEN"])
	if err != nil || !strings.HasPrefix(env["ADKPROXY_LISTEN"], "0.0.0.0:") {
		t.Fatalf("ENV ADKPROXY_LISTEN=%q: want 0.0.0.0:PORT, the container's own interfaces", env["ADKPROXY_LISTEN"])
	}
	if expose := df.last("EXPOSE"); expose != port || port != "9787" {
		t.Errorf("EXPOSE %s, ADKPROXY_LISTEN port %s: want both 9787", expose, port)
	}

	// The build, as the Dockerfile writes it.
	const version = "v0.0.0-containertest"
	bin := filepath.Join(t.TempDir(), "adkproxy")
	build := df.goBuild(t, map[string]string{"VERSION": version}, bin)
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(build.Args, " "), err, out)
	}
	checkStatic(t, bin)
	if out, _ := exec.Command(bin, "--version").Output(); !strings.Contains(string(out), version) {
		t.Errorf("--version of the image's binary: %q, want %s (the VERSION build argument)", out, version)
	}

	// The container, its cassette volume a folder here.
	cassettes := t.TempDir()
	if err := os.CopyFS(cassettes, os.DirFS(filepath.Join(root, "examples", "weather", "cassettes"))); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // hang guard only
	defer cancel()
	c := startContainer(t, ctx, df, bin, jsonArgs(t, "CMD", df.last("CMD")), env, cassettes)
	if !strings.HasPrefix(c.addr, "0.0.0.0:") && !strings.HasPrefix(c.addr, "[::]:") {
		t.Errorf("the container's proxy listens on %s, want every interface", c.addr)
	}
	out, err := c.healthcheck(ctx)
	if err != nil || !strings.Contains(out, "ok: adkproxy replay") {
		t.Errorf("HEALTHCHECK against the running proxy: %v\n%s\nproxy stderr:\n%s", err, out, c.stderr.String())
	}

	if err := c.stop(); err != nil {
		t.Errorf("the proxy exited with %v after SIGTERM and only health probes; stderr:\n%s", err, c.stderr.String())
	}
	out, err = c.healthcheck(ctx)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(out, "unhealthy") {
		t.Errorf("HEALTHCHECK with the proxy stopped: %v, want exit 1 saying unhealthy\n%s", err, out)
	}
}

// container is the image run as a process: its ENTRYPOINT (the binary
// built here) with a command, the image's ENV and the service's, and
// /cassettes a folder here. Port 0 and --addr-file stand in for the fixed
// port, which another test on this machine may hold.
type container struct {
	cmd    *exec.Cmd
	stderr bytes.Buffer
	addr   string
	check  []string // the HEALTHCHECK command
	env    []string // the environment of a process beside the proxy
}

func startContainer(t *testing.T, ctx context.Context, df dockerfile, bin string, command []string, env map[string]string, cassettes string) *container {
	t.Helper()
	entry := jsonArgs(t, "ENTRYPOINT", df.last("ENTRYPOINT"))
	argv := replaceArgs(append(entry, command...), entry[0], bin, "/cassettes", cassettes)
	addrFile := filepath.Join(t.TempDir(), "addr")
	c := &container{cmd: exec.CommandContext(ctx, argv[0], argv[1:]...)}
	c.cmd.Env = envList(env, "ADKPROXY_LISTEN=0.0.0.0:0", "ADKPROXY_ADDR_FILE="+addrFile)
	c.cmd.Stderr = &c.stderr
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.cmd.Process.Kill() })
	c.addr = waitForFile(t, addrFile)
	_, port, _ := net.SplitHostPort(c.addr)
	check := df.healthcheck(t)
	c.check = replaceArgs(check, check[0], bin)
	c.env = envList(env, "ADKPROXY_LISTEN=0.0.0.0:"+port) // the container's ENV, the real port
	return c
}

// healthcheck runs the image's HEALTHCHECK command beside the proxy.
func (c *container) healthcheck(ctx context.Context) (string, error) {
	cmd := exec.CommandContext(ctx, c.check[0], c.check[1:]...)
	cmd.Env = c.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// stop sends SIGTERM, as `docker stop` does, and waits for the exit.
func (c *container) stop() error {
	c.cmd.Process.Signal(syscall.SIGTERM)
	return c.cmd.Wait()
}

type dockerfile struct {
	instructions [][2]string // keyword, rest
}

func parseDockerfile(t *testing.T, path string) dockerfile {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var df dockerfile
	joined := strings.ReplaceAll(string(raw), "\\\n", " ")
	for _, line := range strings.Split(joined, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		kw, rest, _ := strings.Cut(line, " ")
		df.instructions = append(df.instructions, [2]string{strings.ToUpper(kw), strings.TrimSpace(rest)})
	}
	return df
}

// last is the argument of the last instruction kw: the one in force.
func (df dockerfile) last(kw string) string {
	rest := ""
	for _, in := range df.instructions {
		if in[0] == kw {
			rest = in[1]
		}
	}
	return rest
}

// env is every ENV of the final stage.
func (df dockerfile) env() map[string]string {
	env := map[string]string{}
	for _, in := range df.instructions {
		switch in[0] {
		case "FROM":
			clear(env)
		case "ENV":
			for _, kv := range shellWords(in[1], nil) {
				if k, v, ok := strings.Cut(kv, "="); ok {
					env[k] = v
				}
			}
		}
	}
	return env
}

// goBuild is the Dockerfile's `RUN ... go build` as a command writing to
// out, with ARG defaults overridden by args.
func (df dockerfile) goBuild(t *testing.T, args map[string]string, out string) *exec.Cmd {
	t.Helper()
	vars := map[string]string{}
	var words []string
	for _, in := range df.instructions {
		switch in[0] {
		case "ARG":
			name, def, _ := strings.Cut(in[1], "=")
			vars[name] = strings.Trim(def, `"`)
			if v, ok := args[name]; ok {
				vars[name] = v
			}
		case "RUN":
			if strings.Contains(in[1], "go build") {
				words = shellWords(in[1], vars)
			}
		}
	}
	if words == nil {
		t.Fatal("the Dockerfile has no RUN ... go build line")
	}
	var env []string
	for len(words) > 0 && strings.Contains(words[0], "=") {
		env, words = append(env, words[0]), words[1:]
	}
	if words[0] != "go" || words[1] != "build" {
		t.Fatalf("RUN line %q: want [VAR=value...] go build ...", words)
	}
	if !strings.Contains(strings.Join(env, " "), "CGO_ENABLED=0") {
		t.Errorf("the image's build does not set CGO_ENABLED=0: %v", env)
	}
	for i, w := range words {
		if w == "-o" && i+1 < len(words) {
			words[i+1] = out
		}
	}
	cmd := exec.Command(words[0], words[1:]...)
	cmd.Env = append(os.Environ(), env...)
	return cmd
}

func (df dockerfile) healthcheck(t *testing.T) []string {
	t.Helper()
	rest := df.last("HEALTHCHECK")
	_, cmd, ok := strings.Cut(rest, "CMD ")
	if !ok {
		t.Fatalf("HEALTHCHECK %q has no CMD", rest)
	}
	return jsonArgs(t, "HEALTHCHECK CMD", cmd)
}

// shellWords splits a line as sh would for this Dockerfile's needs: blanks
// outside double quotes, quotes removed, ${VAR} and $VAR expanded.
func shellWords(line string, vars map[string]string) []string {
	line = regexp.MustCompile(`\$\{(\w+)\}|\$(\w+)`).ReplaceAllStringFunc(line, func(m string) string {
		return vars[strings.Trim(m, "${}")]
	})
	var words []string
	var cur strings.Builder
	quoted, inWord := false, false
	for _, r := range line {
		switch {
		case r == '"':
			quoted, inWord = !quoted, true
		case (r == ' ' || r == '\t') && !quoted:
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

func jsonArgs(t *testing.T, what, s string) []string {
	t.Helper()
	var args []string
	if err := json.Unmarshal([]byte(s), &args); err != nil || len(args) == 0 {
		t.Fatalf("%s %s: want the exec form, a JSON array (%v)", what, s, err)
	}
	return args
}

// replaceArgs replaces whole arguments: pairs of old, new.
func replaceArgs(args []string, pairs ...string) []string {
	out := append([]string(nil), args...)
	for i, a := range out {
		for p := 0; p+1 < len(pairs); p += 2 {
			if a == pairs[p] {
				out[i] = pairs[p+1]
			}
		}
	}
	return out
}

func envList(env map[string]string, extra ...string) []string {
	list := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	for k, v := range env {
		list = append(list, k+"="+v)
	}
	return append(list, extra...)
}

// checkStatic fails unless bin needs no dynamic loader or shared library:
// distroless/static and scratch have neither.
func checkStatic(t *testing.T, bin string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		return // the image is linux; other systems' binaries are not ELF
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("the image's binary asks for a dynamic loader (PT_INTERP): it would not start on distroless/static")
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("the image's binary needs shared libraries %v", libs)
	}
}

// composeService is the part of a docker-compose service the stand-in runs.
type composeService struct {
	Command     []string          `yaml:"command"`
	WorkingDir  string            `yaml:"working_dir"`
	Volumes     []string          `yaml:"volumes"`
	Environment map[string]string `yaml:"environment"`
	DependsOn   map[string]struct {
		Condition string `yaml:"condition"`
	} `yaml:"depends_on"`
}

// TestComposeExample runs examples/compose/docker-compose.yml as compose
// would, with processes for containers (no container engine runs here): the
// adkproxy service is the image's ENTRYPOINT with the service's command and
// environment over the image's ENV, its volume a copy of the cassettes; the
// agent service's command runs in its mounted folder once the image's
// HEALTHCHECK passes, and reaches the proxy at a non-loopback address of
// this machine, as a container on the compose network would, so the
// control token matters.
func TestComposeExample(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		testutil.Require(t, "node (Node.js 20 or newer)")
	}
	root := testutil.RepoRoot()
	composeDir := filepath.Join(root, "examples", "compose")
	raw, err := os.ReadFile(filepath.Join(composeDir, "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var compose struct {
		Services map[string]composeService `yaml:"services"`
	}
	if err := yaml.Unmarshal([]byte(expandDefaults(string(raw))), &compose); err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	proxySvc, agent := compose.Services["adkproxy"], compose.Services["agent"]
	if agent.DependsOn["adkproxy"].Condition != "service_healthy" {
		t.Errorf("the agent does not wait for the proxy's health check: depends_on %+v", agent.DependsOn)
	}
	df := parseDockerfile(t, filepath.Join(root, "Dockerfile"))
	ip := testutil.NonLoopbackIP(t)

	// The adkproxy container.
	cassettes := t.TempDir()
	if err := os.CopyFS(cassettes, os.DirFS(volumeSource(t, composeDir, proxySvc.Volumes, "/cassettes"))); err != nil {
		t.Fatal(err)
	}
	env := df.env()
	for k, v := range proxySvc.Environment {
		env[k] = v
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute) // hang guard only
	defer cancel()
	c := startContainer(t, ctx, df, adkproxyBin, proxySvc.Command, env, cassettes)
	if out, err := c.healthcheck(ctx); err != nil {
		t.Fatalf("the proxy service is not healthy: %v\n%s\n%s", err, out, c.stderr.String())
	}
	_, port, _ := net.SplitHostPort(c.addr)

	// The agent container, first without the token: the proxy refuses its
	// cassette switch, so its tests fail before sending anything.
	proxyURL := "http://" + net.JoinHostPort(ip.String(), port)
	runAgent := func(drop string) (string, error) {
		cmd := exec.CommandContext(ctx, node, agent.Command[1:]...)
		cmd.Dir = volumeSource(t, composeDir, agent.Volumes, agent.WorkingDir)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
		for k, v := range agent.Environment {
			if k != drop {
				cmd.Env = append(cmd.Env, k+"="+strings.ReplaceAll(v, "http://adkproxy:9787", proxyURL))
			}
		}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if agent.Command[0] != "node" {
		t.Fatalf("agent command %v: the stand-in runs node", agent.Command)
	}
	if out, err := runAgent("ADKPROXY_CONTROL_TOKEN"); err == nil || !strings.Contains(out, "Authorization: Bearer") {
		t.Errorf("the agent without the control token: %v, want its tests to fail naming the bearer token\n%s", err, out)
	}
	if out, err := runAgent(""); err != nil {
		t.Errorf("the agent's tests: %v\n%s\nproxy stderr:\n%s", err, out, c.stderr.String())
	}

	if err := c.stop(); err != nil || !strings.Contains(c.stderr.String(), "2 matched, 0 mismatched, 0 unmatched, 0 recording(s) unused") {
		t.Errorf("the proxy service exited with %v; stderr:\n%s", err, c.stderr.String())
	}
}

// expandDefaults replaces ${VAR:-default} with its default, as compose does
// with VAR unset.
func expandDefaults(s string) string {
	return regexp.MustCompile(`\$\{\w+:-([^}]*)\}`).ReplaceAllString(s, "$1")
}

// volumeSource is the folder on this machine mounted at target (relative
// sources are relative to the compose file, as compose reads them).
func volumeSource(t *testing.T, composeDir string, volumes []string, target string) string {
	t.Helper()
	for _, v := range volumes {
		parts := strings.Split(v, ":")
		if len(parts) >= 2 && parts[1] == target {
			return filepath.Join(composeDir, parts[0])
		}
	}
	t.Fatalf("no volume mounted at %s in %v", target, volumes)
	return ""
}
