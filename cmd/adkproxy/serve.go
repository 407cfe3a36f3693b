// Running record or replay: the proxy's config from flags, listening,
// wrapping a command (or serving until a signal), then shutting down,
// writing cassettes and summing up the run.

package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/base/clilog"
	"github.com/adkproxy/adkproxy/internal/base/proxyopt"
	"github.com/adkproxy/adkproxy/internal/engine/clientenv"
	"github.com/adkproxy/adkproxy/internal/engine/runpolicy"
	"github.com/adkproxy/adkproxy/internal/engine/toolfake"
	"github.com/adkproxy/adkproxy/internal/engine/wrap"
	"github.com/adkproxy/adkproxy/internal/feature/mcp"
	"github.com/adkproxy/adkproxy/matcher"
	"github.com/adkproxy/adkproxy/proxy"
	"github.com/urfave/cli/v2"
)

// runProxy runs record or replay once, as sample n of the cassettes when
// n > 0 (samples.go).
func runProxy(c *cli.Context, mode proxy.Mode, n int) error {
	cfg, err := proxyConfig(c, mode)
	if err != nil {
		return err
	}
	cfg.Sample = n
	release, err := lockForRecording(cfg)
	if err != nil {
		return err
	}
	defer release()
	fwd, err := setupForwarding(c, &cfg) // forward.go
	if err != nil {
		return err
	}
	srv, err := newServer(c, cfg)
	if err != nil {
		return err
	}
	ln, err := listen(c, mode, cfg)
	if err != nil {
		return err
	}
	base := "http://" + ln.Addr().String()
	if unannounce, err := mcp.Announce(base, string(mode)); err != nil { // adkproxy mcp finds the proxy by it
		cfg.Logger.Warn("adkproxy mcp will not find this proxy without ADKPROXY_URL", "error", err.Error())
	} else {
		defer unannounce()
	}
	httpServer := srv.HTTPServer()
	served := proxyopt.LimitListener(ln, cfg.Limits.MaxConns, cfg.Logger)
	if fwd != nil { // TLS on the same port for https:// and wss:// clients, with a leaf from the local CA
		served = proxyopt.SniffTLS(served, fwd.auth.Leaf)
	}
	go httpServer.Serve(served)
	stopWatch := watch(c, srv, cfg.Logger)
	runErr := runOrServe(c, mode, cfg, fwd, base)
	stopWatch()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	httpServer.Shutdown(ctx)
	return endRun(c, mode, srv, cfg, runErr, base)
}

// newServer makes the proxy, showing progress while replay loads its
// cassettes.
func newServer(c *cli.Context, cfg proxy.Config) (*proxy.Server, error) {
	if cfg.Mode != proxy.ModeReplay {
		return proxy.New(cfg)
	}
	restoreGC := loadingGC(cfg.Dir)
	stopProgress := startProgress(c.App.ErrWriter, "adkproxy: loading cassettes from "+cfg.Dir)
	srv, err := proxy.New(cfg)
	stopProgress()
	restoreGC()
	return srv, err
}

// listen opens --listen (a free loopback port for a wrapped command given
// none), warns when other machines can reach it, and writes --addr-file.
func listen(c *cli.Context, mode proxy.Mode, cfg proxy.Config) (net.Listener, error) {
	listen := c.String("listen")
	if c.Args().Present() && !c.IsSet("listen") {
		listen = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, usageErrorf("cannot listen on %s: %v", listen, err)
	}
	warnIfExposed(cfg.Logger, ln.Addr(), mode == proxy.ModeRecord && cfg.Forward != nil)
	if f := c.String("addr-file"); f != "" {
		if err := cassettes.WriteFileAtomic(f, []byte(ln.Addr().String()+"\n")); err != nil {
			ln.Close()
			return nil, usageErrorf("cannot write --addr-file %s: %v", f, err)
		}
	}
	return ln, nil
}

// watch reloads edited cassettes with --watch until the returned stop.
func watch(c *cli.Context, srv *proxy.Server, log *slog.Logger) (stop func()) {
	ctx, stop := context.WithCancel(context.Background())
	if c.Bool("watch") {
		go func() {
			if err := srv.Watch(ctx); err != nil {
				log.Error("--watch stopped: cassettes edited from now on are not reloaded", "error", err.Error())
			}
		}()
	}
	return stop
}

// runOrServe runs the wrapped command, passing on SIGINT and SIGTERM, or
// with none prints the exports and serves until one of them.
func runOrServe(c *cli.Context, mode proxy.Mode, cfg proxy.Config, fwd *forwarding, base string) error {
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(signals)
	if !c.Args().Present() {
		wrap.PrintExports(c.App.Writer, cfg, base)
		fwd.printExports(c.App.Writer, base)
		cfg.Logger.Info("adkproxy "+string(mode)+" listening", "addr", strings.TrimPrefix(base, "http://"), "cassettes", cfg.Dir)
		<-signals
		return nil
	}
	env, done, err := fwd.childEnv(clientenv.Env(os.Environ(), base, wrap.PlaceholderKey(cfg)), base)
	if err != nil {
		return err
	}
	defer done()
	err = wrap.Run(c.Args().Slice(), env, signals, c.App.Writer, c.App.ErrWriter)
	var st *wrap.Status
	if errors.As(err, &st) {
		return withCode(st.Code, st.Err)
	}
	return err
}

// endRun writes the cassettes and --report, sums the run up on stderr and
// picks its exit status.
func endRun(c *cli.Context, mode proxy.Mode, srv *proxy.Server, cfg proxy.Config, runErr error, base string) error {
	stderr := c.App.ErrWriter
	flushErr := closeProxy(c, srv, runErr, stderr) // failedrun.go
	logJournalSyncs(cfg.Logger, srv.Stats().Recorded)
	report := srv.Report()
	if fakes, ok := cfg.ToolFakes.(*toolfake.Set); ok {
		fmt.Fprint(stderr, fakes.Report())
	}
	fmt.Fprint(stderr, paletteFor(stderr).summary(proxy.Summary(report, srv.Stats(), moreIn(reportPath(c, cfg.Sample))), srv.Failure() != nil))
	placeholder := clientenv.PlaceholderSet(wrap.PlaceholderKey(cfg))
	empty := nothingReached(c, mode, srv, base, placeholder) // empty.go
	// A run given the placeholder key did not fail for want of one.
	keyless := mode == proxy.ModeRecord && runErr != nil && exitCodeFor(runErr) != exitNoCommand && srv.Stats().WithKey == 0 && !placeholder
	if empty != nil && runErr != nil && !keyless { // the command's status wins; the likelier cause is said below
		fmt.Fprintf(stderr, "%s %v\n", paletteFor(stderr).red("adkproxy:"), empty)
	}
	if keyless {
		fmt.Fprintf(stderr, "adkproxy: no API key reached adkproxy: none of the requests carried %s. "+
			"Set the variable its SDK reads for adkproxy record, which passes it on to the command: GOOGLE_API_KEY or GEMINI_API_KEY (genai, ADK, LangChain.js, Genkit), "+
			"GOOGLE_GENERATIVE_AI_API_KEY (the Vercel AI SDK) or OPENAI_API_KEY (openai and the OpenAI Agents SDK on Gemini's OpenAI-compatible endpoint), or give the client a key "+
			"(the table 'Pointing a client at adkproxy' in the README).\n",
			cassettes.CredentialPlaces)
	}
	if f := reportPath(c, cfg.Sample); f != "" {
		if err := runpolicy.WriteReport(f, report); err != nil && flushErr == nil {
			flushErr = err
		}
	}
	switch {
	case flushErr != nil:
		return withCode(exitCantWrite, flushErr)
	case srv.Err() != nil:
		return withCode(exitDataErr, srv.Err())
	case runErr != nil:
		return runErr
	case empty != nil:
		return withCode(exitUnmatched, empty)
	default:
		return srv.Failure() // proxy.ErrRunFailed: exit 76
	}
}

func proxyConfig(c *cli.Context, mode proxy.Mode) (proxy.Config, error) {
	dir, err := cassettesDir(c)
	if err != nil {
		return proxy.Config{}, err
	}
	logger, err := clilog.New(c.App.ErrWriter, logFormat(c), c.String("log-level"))
	if err != nil {
		return proxy.Config{}, withCode(exitUsage, err)
	}
	if c.Args().Present() && !c.IsSet("log-format") { // the summary says these once, at the end (quiet.go)
		logger = clilog.Without(logger, inTheSummary)
	}
	if _, err := cassettes.FileName(c.String("cassette")); err != nil {
		return proxy.Config{}, usageErrorf("--cassette: %v", err)
	}
	if c.Int64("max-body") <= 0 {
		return proxy.Config{}, usageErrorf("--max-body must be a positive number of bytes")
	}
	redactor, err := redactorFlags(c)
	if err != nil {
		return proxy.Config{}, err
	}
	m, err := matcher.New(c.StringSlice("ignore")...)
	if err != nil {
		return proxy.Config{}, usageErrorf("--ignore: %v", err)
	}
	cfg := proxy.Config{
		Mode:            mode,
		Matcher:         m,
		Dir:             dir,
		DefaultCassette: c.String("cassette"),
		Redactor:        redactor,
		Logger:          logger,
		MaxBody:         c.Int64("max-body"),
		ControlToken:    c.String("control-token"),
		Version:         versionText(),
	}
	if cfg.Limits, err = limitsFrom(c, mode); err != nil {
		return cfg, err
	}
	if mode == proxy.ModeRecord {
		err = recordFlags(c, &cfg)
	} else {
		err = replayFlags(c, &cfg)
	}
	if err != nil {
		return proxy.Config{}, err
	}
	if f := c.String("tool-fakes"); f != "" {
		fakes, err := toolfake.Load(f)
		if err != nil {
			return proxy.Config{}, usageErrorf("--tool-fakes: %v", err)
		}
		cfg.ToolFakes = fakes
	}
	cfg.ClosedWorld = mode == proxy.ModeReplay && c.Bool("closed-world")
	cfg.Hints = hintsFor(mode, cfg.Lenient)
	return cfg, nil
}

// redactorFlags reads --redact and --keep-header.
func redactorFlags(c *cli.Context) (*cassettes.Redactor, error) {
	var redact []string
	for _, v := range c.StringSlice("redact") {
		if v == "" {
			return nil, usageErrorf("--redact needs a non-empty value")
		}
		redact = append(redact, v)
	}
	redactor := redactorFor(redact)
	for _, name := range c.StringSlice("keep-header") {
		if err := redactor.KeepHeader(name); err != nil {
			return nil, usageErrorf("--keep-header %q: %v", name, err)
		}
	}
	return redactor, nil
}

// recordFlags reads record's own flags into cfg.
func recordFlags(c *cli.Context, cfg *proxy.Config) (err error) {
	if cfg.Mode, err = recordModeFor(c.String("mode")); err != nil {
		return usageErrorf("--mode: %v", err)
	}
	if cfg.Upstream, err = parseUpstream("--upstream", c.String("upstream")); err != nil {
		return withCode(exitUsage, err)
	}
	if v := c.String("vertex-upstream"); v != "" {
		if cfg.VertexUpstream, err = parseUpstream("--vertex-upstream", v); err != nil {
			return withCode(exitUsage, err)
		}
	}
	return nil
}

// replayFlags reads replay's own flags into cfg.
func replayFlags(c *cli.Context, cfg *proxy.Config) (err error) {
	if cfg.Lenient, err = lenientFor(c.String("mode")); err != nil {
		return usageErrorf("--mode: %v", err)
	}
	if cfg.ConformanceKeys, err = conformanceKeysFor(c.String("match")); err != nil {
		return usageErrorf("--match: %v", err)
	}
	if cfg.Faults, err = faultSpecs(c); err != nil {
		return err
	}
	cfg.AllowRepeats = c.Bool("allow-repeats")
	cfg.ReplayTiming = c.Bool("replay-timing")
	cfg.CheckAll = c.Bool("check")
	return nil
}

// controlHint is what a peer refused by the control API can do.
const controlHint = "start adkproxy with --control-token TOKEN and send it as a bearer token"

// hintsFor ends the proxy's failure messages with the command or flag that
// helps, in the mode being run.
func hintsFor(mode proxy.Mode, lenient bool) proxy.Hints {
	if mode == proxy.ModeRecord {
		// Only record --mode once replays strictly, and only on a cassette
		// that exists: overwriting it is the way to take the change.
		const overwrite = "re-record with 'adkproxy record --mode overwrite'"
		return proxy.Hints{
			Record:   overwrite,
			Rerecord: "R" + overwrite[1:] + " if the change is intended.",
			Mismatch: "R" + overwrite[1:] + " if the change is intended.",
			UsedUp:   overwrite,
			TooLarge: "raise --max-body",
			Control:  controlHint,
		}
	}
	mismatch := "Re-record with 'adkproxy record', or accept with '--mode lenient'."
	if lenient { // already accepting: only re-recording helps
		mismatch = "Re-record with 'adkproxy record' if the change is intended."
	}
	return proxy.Hints{
		Record:   "record it first with 'adkproxy record'",
		Rerecord: "Re-record with 'adkproxy record' if the change is intended.",
		Mismatch: mismatch,
		UsedUp:   "pass --allow-repeats to keep serving the last one, or re-record with 'adkproxy record'",
		TooLarge: "raise --max-body",
		Control:  controlHint,
	}
}

// warnIfExposed warns when the proxy is reachable from other machines:
// in record mode anyone who can reach it spends the user's API key and,
// with forwarding on, sends requests to any host through it.
func warnIfExposed(log *slog.Logger, addr net.Addr, forwarding bool) {
	if tcp, ok := addr.(*net.TCPAddr); ok && !tcp.IP.IsLoopback() {
		msg := "LISTENING ON A NON-LOOPBACK ADDRESS: other machines can reach this proxy (and, while recording, use your API key)"
		if forwarding {
			msg += "; recording here is also an open forward proxy to any host (HTTPS_PROXY) unless --no-forward-proxy is given" +
				" (but not to this machine's loopback, link-local or own addresses unless --forward-allow-local names them)"
		}
		log.Warn(msg, "addr", addr.String())
	}
}

// moreIn words where a summary's requests past the first few can be read.
func moreIn(reportFile string) string {
	if reportFile != "" {
		return " in " + reportFile
	}
	return ": run with --report FILE to see them all"
}
