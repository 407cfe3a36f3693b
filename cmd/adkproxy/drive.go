// The 'adkproxy drive' command: flags and wiring; the turns are package drive's,
// the client package api's.

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/adkproxy/adkproxy/internal/base/adkapi"
	"github.com/adkproxy/adkproxy/internal/base/numruns"
	"github.com/adkproxy/adkproxy/internal/base/samplename"
	"github.com/adkproxy/adkproxy/internal/data/conformance"
	"github.com/adkproxy/adkproxy/internal/data/evalset"
	"github.com/adkproxy/adkproxy/internal/feature/adk/drive"
	"github.com/urfave/cli/v2"
)

const driveExitStatusHelp = `EXIT STATUS:
   0    every turn completed and the session was written
   1    the server could not be reached, or failed a turn (the session so far is still written)
   64   usage error (unknown flag, missing --server, --app, or one of --spec and --evalset)
   65   the --spec or --evalset file is missing, unreadable or invalid
   73   the --out file could not be written`

func driveCommand() *cli.Command {
	return &cli.Command{
		Name:  "drive",
		Usage: "play a conformance spec's or an eval set's user turns against an ADK API server",
		Description: "Creates a session on the ADK API server at --server (any ADK language: 'adk api_server'),\n" +
			"posts each user turn to run_sse with only the fields every ADK server accepts, and writes the\n" +
			"session as the server then returns it, events exactly as it sent them, as JSON.\n\n" +
			"--spec reads an ADK conformance case's spec.yaml: its initial_state, and user_messages sent in\n" +
			"order (text or content, with state_delta); a function_response answering a long-running tool\n" +
			"gets the id of the server's earlier call of that function. --evalset reads an ADK eval set\n" +
			"(a file or folder, as 'adkproxy score --expected' does): each eval case's user contents are\n" +
			"played in a session of their own, and the output is a JSON list of the sessions (cases with a\n" +
			"conversation_scenario are skipped, with a note on stderr).\n\n" +
			"Run the server under 'adkproxy record -- SERVER COMMAND' to record the run as a golden one, under\n" +
			"'adkproxy replay' to rerun it offline; 'adkproxy score' then scores the cassettes.\n\n" +
			driveExitStatusHelp,
		Flags: append([]cli.Flag{
			stringFlag("server", "", "base `URL` of the ADK API server, e.g. http://127.0.0.1:8000 (required)"),
			stringFlag("prefix", "", "`PATH` the API is mounted under: empty for ADK Python and ADK-JS, /api for ADK Go"),
			stringFlag("app", "", "`NAME` of the app (agent folder) to run (required)"),
			stringFlag("spec", "", "conformance spec.yaml `FILE` with the turns"),
			stringFlag("evalset", "", "ADK eval set `PATH` (a file or a folder of them) with the turns"),
			stringFlag("user", "user", "user `ID` the sessions belong to (an --evalset case's session_input user_id wins)"),
			stringFlag("out", "", "write the session JSON to `FILE` (atomically) instead of stdout"),
			&cli.IntFlag{Name: "samples", Usage: "play the conversations `K` times, run N recorded as sample N of the recording proxy's cassette (NAME@N; needs --proxy-url, the adkproxy record the server runs under)", EnvVars: envFor("samples")},
			&cli.IntFlag{Name: "num-runs", Value: 1, Usage: "play each conversation `N` times, each in a session of its own (for score --num-runs N)", EnvVars: envFor("num-runs")},
			stringFlag("confirm", "", "answer the agent's tool confirmation requests (adk_request_confirmation) with `DECISION`: approve or refuse; default: leave them unanswered"),
			stringFlag("confirm-shape", "object", "`SHAPE` of the confirmation answer: object ({\"confirmed\": true}) or json-string ({\"response\": \"{\\\"confirmed\\\": true}\"}), the two ADK accepts"),
			stringFlag("confirm-payload", "", "send the `JSON` value as the confirmation answer's payload (ADK hands it to the tool); default: none"),
			boolFlag("streaming", "run the turns in ADK's SSE streaming mode (\"streaming\": true: the agent calls the model's streaming method; the session keeps whole events only)"),
			&cli.DurationFlag{Name: "wait", Usage: "wait up to `DURATION` for the server to answer GET {prefix}/list-apps before starting (for a server just started)", EnvVars: envFor("wait")},
		}, append(confirmReportFlags(), outboundFlags()...)...),
		Action:       runDrive,
		OnUsageError: commandUsageError,
	}
}

func runDrive(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageErrorf("drive: unexpected argument %q (see 'adkproxy drive --help')", c.Args().First())
	}
	server, app := c.String("server"), c.String("app")
	if server == "" || app == "" {
		return usageErrorf("drive: --server and --app are required (see 'adkproxy drive --help')")
	}
	specPath, evalPath := c.String("spec"), c.String("evalset")
	if (specPath == "") == (evalPath == "") {
		return usageErrorf("drive: give exactly one of --spec and --evalset")
	}
	client, err := adkapi.New(server, c.String("prefix"))
	if err != nil {
		return usageErrorf("drive: --server: %v", err)
	}
	policy, err := outboundPolicy(c)
	if err != nil {
		return err
	}
	client.HTTPClient = policy.Client()
	convs, err := driveConversations(c, specPath, evalPath)
	if err != nil {
		return err
	}
	if wait := c.Duration("wait"); wait > 0 {
		if err := waitForServer(c.Context, client, wait); err != nil {
			return err
		}
	}

	runs := c.Int("num-runs")
	if convs, err = numruns.Repeat(convs, runs, func(conv drive.Conversation, k int) drive.Conversation { return conv.Run(k, runs) }); err != nil {
		return usageErrorf("drive: %v", err)
	}
	confirm, err := drive.ParseConfirmation(c.String("confirm"), c.String("confirm-shape"), c.String("confirm-payload"))
	if err != nil {
		return usageErrorf("drive: --confirm/--confirm-shape/--confirm-payload: %v", err)
	}
	d := &drive.Driver{Client: client, App: app, User: c.String("user"), Streaming: c.Bool("streaming"), Confirm: confirm, Report: confirmReporter(c)}
	sessions, runErr := driveSamples(c, d, convs)
	var out any = sessions
	if specPath != "" && len(sessions) == 1 && runs == 1 && c.Int("samples") == 0 {
		out = sessions[0]
	}
	if err := writeSessions(c, out, len(sessions)); err != nil {
		return errors.Join(runErr, err)
	}
	if runErr != nil && exitCodeFor(runErr) == exitUsage {
		return runErr
	} else if runErr != nil {
		return withCode(exitFailure, fmt.Errorf("drive: %w", runErr))
	}
	return nil
}

// driveSamples is driveAll once, or with --samples K once per sample,
// the recording proxy switched to cassette NAME@N for sample N (and back
// to NAME after).
func driveSamples(c *cli.Context, d *drive.Driver, convs []drive.Conversation) ([]*adkapi.Session, error) {
	k := c.Int("samples")
	if k == 0 {
		return driveAll(c.Context, d, convs)
	}
	ctl := &adkapi.ConfirmationReporter{URL: c.String("proxy-url"), Token: c.String("control-token")}
	if k < 0 || k > samplename.Max || ctl.URL == "" {
		return nil, usageErrorf("drive: --samples %d needs a number 1..%d and --proxy-url, the adkproxy record the server runs under (its --addr-file)", k, samplename.Max)
	}
	base, err := ctl.Cassette(c.Context)
	if err != nil {
		return nil, fmt.Errorf("drive --samples: %w", err)
	}
	defer ctl.UseCassette(context.WithoutCancel(c.Context), base)
	var all []*adkapi.Session
	for n := 1; n <= k; n++ {
		if err := ctl.UseCassette(c.Context, samplename.Name(base, n)); err != nil {
			return all, fmt.Errorf("drive --samples: %w", err)
		}
		fmt.Fprintf(c.App.ErrWriter, "adkproxy: drive: sample %d of %d into cassette %s\n", n, k, samplename.Name(base, n))
		sessions, err := driveAll(c.Context, d, convs)
		all = append(all, sessions...)
		if err != nil {
			return all, err
		}
	}
	return all, nil
}

// driveAll plays the conversations in turn until one fails, and returns
// the sessions so far.
func driveAll(ctx context.Context, d *drive.Driver, convs []drive.Conversation) ([]*adkapi.Session, error) {
	var sessions []*adkapi.Session
	for _, conv := range convs {
		s, err := d.Drive(ctx, conv)
		if s != nil {
			sessions = append(sessions, s)
		}
		if err != nil {
			return sessions, err
		}
	}
	return sessions, nil
}

// driveConversations reads the turns of --spec or --evalset.
func driveConversations(c *cli.Context, specPath, evalPath string) ([]drive.Conversation, error) {
	if specPath != "" {
		spec, err := conformance.ReadSpec(specPath)
		if err != nil {
			return nil, withCode(exitDataErr, fmt.Errorf("--spec: %w", err))
		}
		return []drive.Conversation{drive.FromSpec(spec)}, nil
	}
	sets, err := evalset.LoadSelected(evalPath)
	if err != nil {
		return nil, withCode(exitDataErr, fmt.Errorf("--evalset: %w", err))
	}
	convs, skipped := drive.FromEvalSet(sets)
	for _, s := range skipped {
		fmt.Fprintf(c.App.ErrWriter, "adkproxy: drive: skipped %s\n", s)
	}
	if len(convs) == 0 {
		return nil, withCode(exitDataErr, fmt.Errorf("--evalset: %s has no eval case with a fixed conversation to play", evalPath))
	}
	return convs, nil
}

// writeSessions writes the sessions driven, if any, to --out or stdout.
func writeSessions(c *cli.Context, out any, n int) error {
	if n == 0 {
		return nil
	}
	data, err := sessionJSON(out)
	if err != nil {
		return err
	}
	return writeOutput(c, c.String("out"), data)
}

// sessionJSON is the sessions indented for reading; json.Indent keeps every
// value the server sent as it was.
func sessionJSON(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("drive: encoding the session: %w", err)
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return nil, fmt.Errorf("drive: encoding the session: %w", err)
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// waitForServer waits up to wait for the server to answer.
func waitForServer(ctx context.Context, client *adkapi.Client, wait time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	if err := client.WaitUp(ctx, nil); err != nil {
		return fmt.Errorf("drive: the server did not answer within --wait %v: %w", wait, err)
	}
	return nil
}
