package mcp

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestServerName(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"node", "/srv/weather.js"}, "weather"},
		{[]string{"python3", "-u", "weather_server.py"}, "weather_server"},
		{[]string{"uvx", "mcp-server-time"}, "mcp-server-time"},
		{[]string{"npx", "-y", "@modelcontextprotocol/server-everything"}, "server-everything"},
		{[]string{"/usr/local/bin/My Server"}, "my-server"},
		{[]string{"node"}, "node"},
		{[]string{"$$$"}, "mcp"},
	} {
		if got := ServerName(c.argv); got != c.want || !validName(got) {
			t.Errorf("ServerName(%q) = %q, want %q", c.argv, got, c.want)
		}
	}
}

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		msg  string
		kind kind
		id   string
	}{
		{`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`, kindRequest, "0"},
		{`{"jsonrpc":"2.0","id":"a","method":"tools/list"}`, kindRequest, `"a"`},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, kindNotification, ""},
		{`{"jsonrpc":"2.0","id":3,"result":{}}`, kindResponse, "3"},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700}}`, kindInvalid, ""},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, kindBatch, ""},
		{`not json`, kindInvalid, ""},
	} {
		k, id := classify([]byte(c.msg))
		if k != c.kind || id != c.id {
			t.Errorf("classify(%s) = %v %q, want %v %q", c.msg, k, id, c.kind, c.id)
		}
	}
}

// TestFindAncestor: the discovery file of an ancestor wins over a live
// stranger's, and without an ancestor's the only live one is taken; with
// two strangers Find asks for --proxy-url.
func TestFindAncestor(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvRunDir, dir)
	t.Setenv(EnvURL, "")
	os.Unsetenv(EnvURL)
	start := func() *exec.Cmd {
		c := exec.Command("sleep", "30")
		if err := c.Start(); err != nil {
			t.Skip("no sleep:", err)
		}
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
		return c
	}
	write := func(pid int, url string) {
		os.WriteFile(filepath.Join(dir, strconv.Itoa(pid)+".json"), []byte(`{"pid":`+strconv.Itoa(pid)+`,"url":"`+url+`","mode":"record"}`), 0o600)
	}
	stranger := start()
	write(stranger.Process.Pid, "http://127.0.0.1:2")
	if got, err := Find(); err != nil || got != "http://127.0.0.1:2" {
		t.Errorf("with one live stranger Find() = %q, %v; want its URL", got, err)
	}
	// go test, this process's parent, is an ancestor.
	write(os.Getppid(), "http://127.0.0.1:1")
	if got, err := Find(); err != nil || got != "http://127.0.0.1:1" {
		t.Errorf("Find() = %q, %v; want the parent's URL", got, err)
	}
	os.Remove(filepath.Join(dir, strconv.Itoa(os.Getppid())+".json"))
	write(start().Process.Pid, "http://127.0.0.1:3")
	if _, err := Find(); err == nil || !strings.Contains(err.Error(), "--proxy-url") {
		t.Errorf("with two live strangers Find() should ask for --proxy-url, got %v", err)
	}
}

// TestAnnounce writes a file Find reads and removes it, and sweeps the
// files of processes that are gone.
func TestAnnounce(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvRunDir, dir)
	gone := exec.Command("true")
	gone.Run()
	stale := filepath.Join(dir, strconv.Itoa(gone.Process.Pid)+".json")
	os.WriteFile(stale, []byte(`{"pid":`+strconv.Itoa(gone.Process.Pid)+`,"url":"http://x","mode":"record"}`), 0o600)
	remove, err := Announce("http://127.0.0.1:9", "replay")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the discovery file of a process that is gone is still there")
	}
	mine := filepath.Join(dir, strconv.Itoa(os.Getpid())+".json")
	if fi, err := os.Stat(mine); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("discovery file %s: %v %v", mine, fi, err)
	}
	remove()
	if _, err := os.Stat(mine); !os.IsNotExist(err) {
		t.Errorf("remove left %s", mine)
	}
}
