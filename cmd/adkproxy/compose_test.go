package main

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

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
