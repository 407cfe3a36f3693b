// Finding the running proxy from an MCP server's process. MCP clients
// start a stdio server with a handful of variables (HOME, PATH, USER,
// SHELL, TERM, LOGNAME) unless the agent sets its env, so ADKPROXY_URL,
// which record and replay give the command they wrap, is usually gone.
// Each record or replay run therefore writes a discovery file, PID.json,
// in a per-user directory derived from HOME alone; `adkproxy mcp` takes
// the file of the nearest of its ancestor processes, or, when no
// ancestor has one, the only live one.

package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// EnvRunDir overrides the directory of discovery files (both the proxy
// and adkproxy mcp read it; an MCP client passes it on only if the agent
// sets it in the server's env).
const EnvRunDir = "ADKPROXY_RUN_DIR"

// EnvURL is the proxy's address as record and replay give it to the
// command they wrap; adkproxy mcp uses it first when the client passed it.
const EnvURL = "ADKPROXY_URL"

// Announcement is a discovery file's content.
type Announcement struct {
	PID  int    `json:"pid"`
	URL  string `json:"url"`
	Mode string `json:"mode"`
}

// RunDir is where discovery files live: $ADKPROXY_RUN_DIR, else
// $HOME/.cache/adkproxy/run (HOME is one of the variables every MCP SDK
// passes; XDG_CACHE_HOME is not, so it is not used).
func RunDir() (string, error) {
	if d := os.Getenv(EnvRunDir); d != "" {
		return d, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no directory for adkproxy's discovery files: %v (set %s)", err, EnvRunDir)
	}
	return filepath.Join(home, ".cache", "adkproxy", "run"), nil
}

// Announce writes this process's discovery file for a proxy at url in
// mode, and returns the function that removes it. Files of processes that
// no longer run are removed on the way.
func Announce(url, mode string) (remove func(), err error) {
	dir, err := RunDir()
	if err != nil {
		return func() {}, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return func() {}, fmt.Errorf("cannot create %s for adkproxy mcp's discovery file: %v", dir, err)
	}
	for _, a := range announced(dir) {
		if !alive(a.PID) {
			os.Remove(filepath.Join(dir, strconv.Itoa(a.PID)+".json"))
		}
	}
	pid := os.Getpid()
	body, _ := json.Marshal(Announcement{PID: pid, URL: url, Mode: mode})
	path := filepath.Join(dir, strconv.Itoa(pid)+".json")
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(body, '\n'), 0o600); err != nil {
		return func() {}, fmt.Errorf("cannot write adkproxy mcp's discovery file %s: %v", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return func() {}, fmt.Errorf("cannot write adkproxy mcp's discovery file %s: %v", path, err)
	}
	return func() { os.Remove(path) }, nil
}

// errNoProxy: nothing says where a proxy runs.
var errNoProxy = errors.New("no running adkproxy record or replay found")

// Find says where the proxy this process runs under listens: ADKPROXY_URL
// when set, else the discovery file of the nearest ancestor, else the only
// live discovery file.
func Find() (string, error) {
	if u := os.Getenv(EnvURL); u != "" {
		return strings.TrimSuffix(u, "/"), nil
	}
	dir, err := RunDir()
	if err != nil {
		return "", err
	}
	files := announced(dir)
	byPID := map[int]Announcement{}
	for _, a := range files {
		byPID[a.PID] = a
	}
	for pid := os.Getppid(); pid > 1; {
		if a, ok := byPID[pid]; ok {
			return a.URL, nil
		}
		next, err := parentOf(pid)
		if err != nil || next == pid {
			break
		}
		pid = next
	}
	var live []Announcement
	for _, a := range files {
		if alive(a.PID) {
			live = append(live, a)
		}
	}
	switch len(live) {
	case 0:
		return "", fmt.Errorf("%w: no discovery file in %s and %s is not set", errNoProxy, dir, EnvURL)
	case 1:
		return live[0].URL, nil
	}
	var urls []string
	for _, a := range live {
		urls = append(urls, fmt.Sprintf("%s (pid %d)", a.URL, a.PID))
	}
	return "", fmt.Errorf("%d adkproxy runs are live (%s) and none is an ancestor of this process: name one with --proxy-url or %s",
		len(live), strings.Join(urls, ", "), EnvURL)
}

// announced reads the discovery files in dir, oldest pid first; a file
// that is not one is skipped.
func announced(dir string) []Announcement {
	entries, _ := os.ReadDir(dir)
	var out []Announcement
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		body, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		var a Announcement
		if json.Unmarshal(body, &a) != nil || a.PID <= 0 || a.URL == "" || e.Name() != strconv.Itoa(a.PID)+".json" {
			continue
		}
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PID < out[j].PID })
	return out
}
