// Package headless drives a headless Chromium over the DevTools protocol,
// for tests of the HTML pages: open a file at a window width, evaluate
// JavaScript, take a screenshot, and collect the console's errors and the
// network requests the page made. It is the few protocol calls those
// tests need over one WebSocket, not a general client.
package headless

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// Browser is a running Chromium with one page.
type Browser struct {
	cmd     *exec.Cmd
	dataDir string
	conn    *websocket.Conn
	session string

	mu       sync.Mutex
	next     int
	pending  map[int]chan reply
	errs     []string // console errors, exceptions, failed loads
	requests []string // URLs the page asked for
	loaded   chan struct{}
}

type reply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

type message struct {
	ID        int             `json:"id"`
	Method    string          `json:"method"`
	SessionID string          `json:"sessionId"`
	Params    json.RawMessage `json:"params"`
	reply
}

var listening = regexp.MustCompile(`DevTools listening on (ws://\S+)`)

// Start runs chromium (the binary at path) headless with nothing of its
// own going over the network, and opens a blank page.
func Start(ctx context.Context, path string) (*Browser, error) {
	dataDir, err := os.MkdirTemp("", "headless-")
	if err != nil {
		return nil, err
	}
	b := &Browser{dataDir: dataDir, pending: map[int]chan reply{}, loaded: make(chan struct{}, 1)}
	b.cmd = exec.CommandContext(ctx, path, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
		"--hide-scrollbars", "--user-data-dir="+dataDir, "--remote-debugging-port=0", "about:blank")
	stderr, err := b.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := b.cmd.Start(); err != nil {
		os.RemoveAll(dataDir)
		return nil, err
	}
	url := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				url <- m[1]
				break
			}
		}
		close(url)
		io.Copy(io.Discard, stderr)
	}()
	var ws string
	select {
	case ws = <-url:
	case <-time.After(60 * time.Second): // a hang guard, not a timed assertion
	}
	if ws == "" {
		b.Close()
		return nil, errors.New("headless: chromium did not print its DevTools address")
	}
	if b.conn, _, err = websocket.DefaultDialer.DialContext(ctx, ws, nil); err != nil {
		b.Close()
		return nil, err
	}
	go b.read()
	var target struct{ TargetID string }
	if err := b.call("", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		b.Close()
		return nil, err
	}
	var attached struct{ SessionID string }
	if err := b.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached); err != nil {
		b.Close()
		return nil, err
	}
	b.session = attached.SessionID
	for _, domain := range []string{"Page", "Runtime", "Log", "Network"} {
		if err := b.call(b.session, domain+".enable", nil, nil); err != nil {
			b.Close()
			return nil, err
		}
	}
	return b, nil
}

// read delivers replies to their callers and records the page's events.
func (b *Browser) read() {
	for {
		var m message
		if err := b.conn.ReadJSON(&m); err != nil {
			b.mu.Lock()
			for id, ch := range b.pending {
				close(ch)
				delete(b.pending, id)
			}
			b.mu.Unlock()
			return
		}
		b.mu.Lock()
		if ch, ok := b.pending[m.ID]; ok && m.ID != 0 {
			ch <- m.reply
			delete(b.pending, m.ID)
		}
		switch m.Method {
		case "Runtime.consoleAPICalled":
			var p struct {
				Type string
				Args []struct{ Value any }
			}
			json.Unmarshal(m.Params, &p)
			if p.Type == "error" || p.Type == "assert" {
				b.errs = append(b.errs, fmt.Sprintf("console.%s: %v", p.Type, p.Args))
			}
		case "Runtime.exceptionThrown":
			b.errs = append(b.errs, "exception: "+string(m.Params))
		case "Log.entryAdded":
			var p struct {
				Entry struct{ Level, Text, URL string }
			}
			json.Unmarshal(m.Params, &p)
			if p.Entry.Level == "error" {
				b.errs = append(b.errs, "log: "+p.Entry.Text+" "+p.Entry.URL)
			}
		case "Network.requestWillBeSent":
			var p struct{ Request struct{ URL string } }
			json.Unmarshal(m.Params, &p)
			b.requests = append(b.requests, p.Request.URL)
		case "Page.loadEventFired":
			select {
			case b.loaded <- struct{}{}:
			default:
			}
		}
		b.mu.Unlock()
	}
}

// call sends one command and decodes its result into out (when not nil).
func (b *Browser) call(session, method string, params any, out any) error {
	b.mu.Lock()
	b.next++
	id := b.next
	ch := make(chan reply, 1)
	b.pending[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	if err := b.conn.WriteJSON(msg); err != nil {
		return err
	}
	r, ok := <-ch
	switch {
	case !ok:
		return fmt.Errorf("headless: %s: connection closed", method)
	case r.Error != nil:
		return fmt.Errorf("headless: %s: %s", method, r.Error.Message)
	case out != nil:
		return json.Unmarshal(r.Result, out)
	}
	return nil
}

// Open loads the file at path in a window width pixels wide and waits
// for its load event.
func (b *Browser) Open(path string, width, height int) error {
	if err := b.Resize(width, height); err != nil {
		return err
	}
	select {
	case <-b.loaded: // drain about:blank's
	default:
	}
	if err := b.call(b.session, "Page.navigate", map[string]any{"url": "file://" + path}, nil); err != nil {
		return err
	}
	select {
	case <-b.loaded:
		return nil
	case <-time.After(60 * time.Second): // a hang guard
		return errors.New("headless: the page never finished loading")
	}
}

// Resize sets the window's size in CSS pixels, as a phone or a desktop.
func (b *Browser) Resize(width, height int) error {
	return b.call(b.session, "Emulation.setDeviceMetricsOverride",
		map[string]any{"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600}, nil)
}

// Eval evaluates a JavaScript expression in the page and decodes its
// value (JSON-serialisable) into out.
func (b *Browser) Eval(expr string, out any) error {
	var r struct {
		Result struct {
			Value json.RawMessage
		}
		ExceptionDetails *struct{ Text string }
	}
	if err := b.call(b.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &r); err != nil {
		return err
	}
	if r.ExceptionDetails != nil {
		return fmt.Errorf("headless: %s: %s", expr, r.ExceptionDetails.Text)
	}
	return json.Unmarshal(r.Result.Value, out)
}

// Screenshot writes the whole page, as wide as the window, as a PNG.
func (b *Browser) Screenshot(path string) error {
	var r struct{ Data string }
	if err := b.call(b.session, "Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true}, &r); err != nil {
		return err
	}
	png, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil {
		return err
	}
	return os.WriteFile(path, png, 0o644)
}

// Errors are the console errors, uncaught exceptions and failed loads so
// far.
func (b *Browser) Errors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.errs...)
}

// Requests are the URLs the page has asked for so far.
func (b *Browser) Requests() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.requests...)
}

// Close stops the browser and removes its profile.
func (b *Browser) Close() {
	if b.conn != nil {
		b.call("", "Browser.close", nil, nil)
		b.conn.Close()
	}
	if b.cmd.Process != nil {
		b.cmd.Process.Kill()
		b.cmd.Wait()
	}
	os.RemoveAll(b.dataDir)
}
