// adkproxy fake: the scripted Gemini API (internal/engine/fake) on a port, for
// agent tests without a key and for recording cassettes from a script.

package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/engine/fake"
	"github.com/urfave/cli/v2"
)

// DefaultFakeListen is where the fake listens without --listen: next to
// the proxy's own default port.
const DefaultFakeListen = "127.0.0.1:9788"

func fakeCommand() *cli.Command {
	return &cli.Command{
		Name:  "fake",
		Usage: "serve a scripted fake Gemini API, for tests without a key",
		Description: "Answers generateContent, streamGenerateContent (SSE, one event per part), countTokens, the\n" +
			"model list and Live from --script, a YAML list of turns (docs/fake.md): each model call of a\n" +
			"turn gets the turn's next item, per session, sessions told apart as adkproxy places calls.\n" +
			"A call beyond the script gets HTTP 400 naming the turn. Record an agent against it with\n" +
			"'adkproxy record --upstream http://ADDR', which needs no key for a non-Google upstream.\n" +
			"Serves until SIGINT or SIGTERM.\n\n" +
			"EXIT STATUS:\n   0    stopped by a signal\n   64   usage error (a bad script, flag or address)",
		Flags: []cli.Flag{
			stringFlag("script", "", "the script `FILE` of turns to answer from (required)"),
			stringFlag("listen", DefaultFakeListen, "`ADDR` to listen on; :0 picks a free port"),
			stringFlag("addr-file", "", "write the address actually listened on to `FILE` once listening"),
		},
		Action:       runFake,
		OnUsageError: commandUsageError,
	}
}

func runFake(c *cli.Context) error {
	if c.Args().Present() {
		return usageErrorf("fake takes no arguments, got %q; give the script with --script", c.Args().First())
	}
	path := c.String("script")
	if path == "" {
		return usageErrorf("fake needs --script FILE, a YAML list of turns (see docs/fake.md)")
	}
	script, err := fake.ReadScript(path)
	if err != nil {
		return usageErrorf("--script: %v", err)
	}
	ln, err := net.Listen("tcp", c.String("listen"))
	if err != nil {
		return usageErrorf("cannot listen on %s: %v", c.String("listen"), err)
	}
	addr := ln.Addr().String()
	// Signals are caught before anyone can know the address, so a SIGTERM
	// right after the first answer stops the fake cleanly (exit 0).
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(signals)
	if f := c.String("addr-file"); f != "" {
		if err := cassettes.WriteFileAtomic(f, []byte(addr+"\n")); err != nil {
			ln.Close()
			return usageErrorf("cannot write --addr-file %s: %v", f, err)
		}
	}
	srv := &http.Server{Handler: fake.New(script), ReadHeaderTimeout: 30 * time.Second}
	go srv.Serve(ln)
	fmt.Fprintf(c.App.Writer, "export GOOGLE_GEMINI_BASE_URL=http://%s\nexport GOOGLE_API_KEY=fake  # any value; the fake checks none\n", addr)
	fmt.Fprintf(c.App.ErrWriter, "adkproxy fake: answering from %s (%d turn(s)) on http://%s\n", path, len(script.Turns), addr)
	<-signals
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	srv.Shutdown(ctx)
	return nil
}
