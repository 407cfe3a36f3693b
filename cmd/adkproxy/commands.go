// The record and replay commands: their flags and help; both run the
// proxy with runProxy (serve.go).

package main

import (
	"github.com/adkproxy/adkproxy/internal/base/adkversion"
	"github.com/adkproxy/adkproxy/proxy"
	"github.com/adkproxy/adkproxy/scoring"
	"github.com/urfave/cli/v2"
)

const wrapHelp = `With "-- COMMAND ARGS...", adkproxy listens on a free port on 127.0.0.1, runs COMMAND with
GOOGLE_GEMINI_BASE_URL and GOOGLE_VERTEX_BASE_URL pointing at itself, forwards SIGINT and SIGTERM
to it, writes the cassettes when it exits and exits with its status. Without a command it serves
until SIGINT or SIGTERM and prints the environment a client needs.

The same port is also an HTTP forward proxy: COMMAND gets HTTPS_PROXY and HTTP_PROXY (and
lower-case), NO_PROXY=localhost,127.0.0.1,::1 plus yours, and SSL_CERT_FILE, REQUESTS_CA_BUNDLE,
CURL_CA_BUNDLE and GRPC_DEFAULT_SSL_ROOTS_FILE_PATH pointing at a bundle of the system roots and
the local CA (written for the run, removed after it; NODE_EXTRA_CA_CERTS gets the CA alone).
HTTPS through it is intercepted with certificates from the local CA (see 'adkproxy ca --help'):
Gemini hosts are recorded and replayed like base-URL traffic; other hosts (an agent's tools) are
recorded as tool exchanges under the step whose function call they served, and replayed from the
cassette (a host it holds nothing for gets a 502). --no-forward-proxy turns this off.`

func recordCommand() *cli.Command {
	return &cli.Command{
		Name:      "record",
		Usage:     "forward traffic to the Gemini API and write it into cassettes",
		ArgsUsage: "[-- COMMAND ARGS...]",
		Description: "With --mode overwrite (the default) each cassette touched during the run is replaced by what this\n" +
			"run recorded; with --mode once a cassette that exists is replayed strictly and left as it was.\n" +
			"API keys, tokens and every --redact value are scrubbed before anything is written.\n\n" +
			wrapHelp + "\n\n" + exitStatusHelp,
		Flags: append(append(append(commonFlags(), forwardFlags()...), routeFlags()...),
			stringFlag("mode", "overwrite", "`MODE`: overwrite (record everything, replacing each cassette used), once (replay cassettes that exist, record the others), new-episodes (replay what was recorded, record what was not), refresh (replay each session while it matches, re-record it from the first request that does not) or passthrough (forward, write nothing)"),
			stringFlag("upstream", proxy.DefaultUpstream, "Gemini API base `URL`"),
			upstreamHeaderTimeoutFlag(),
			allowEmptyFlag(),
			toolFakesFlag(),
			boolFlag("save-on-failure", "when COMMAND exits non-zero, still replace the cassettes it recorded (by default a cassette the run would replace is kept as it was and the run's exchanges go beside it to NAME.failed.yaml, which replay ignores)"),
			&cli.IntFlag{Name: "samples", Usage: "run COMMAND `K` times, recording run N as sample N of its cassettes: cassette NAME is written as NAME@N (file NAME@N.yaml); score reads the K samples of a case as K runs (docs/variance.md)", EnvVars: envFor("samples")},
			stringFlag("vertex-upstream", "", "Vertex AI base `URL` for /projects/... and /publishers/... paths (default: derived from the location in the path, e.g. https://us-central1-aiplatform.googleapis.com)"),
		),
		Action:       func(c *cli.Context) error { return runSamples(c, proxy.ModeRecord) },
		OnUsageError: commandUsageError,
	}
}

func replayCommand() *cli.Command {
	return &cli.Command{
		Name:      "replay",
		Usage:     "answer from cassettes with no network and no API key",
		ArgsUsage: "[-- COMMAND ARGS...]",
		Description: "Requests are matched on method, path, query and JSON body (keys in any order, numbers by\n" +
			"value); headers are ignored. Identical requests get their recorded answers in order. A request\n" +
			"with no recording gets HTTP 400 with a Gemini error naming the closest recording and how it\n" +
			"differs, and makes adkproxy exit 76 even if COMMAND passed.\n\n" +
			wrapHelp + " In replay (and in record from an --upstream outside googleapis.com), when neither\nGOOGLE_API_KEY nor GEMINI_API_KEY is set, GOOGLE_API_KEY is set to a placeholder (every SDK\nreads it; setting both makes SDKs warn).\n\n" +
			exitStatusHelp,
		Flags: append(append(commonFlags(), forwardFlags()...),
			stringFlag("mode", "strict", "`MODE`: strict (a request that differs from the recording gets an error and the run fails) or lenient (the recording at that place is served and the difference reported as a warning)"),
			stringFlag("match", "body", "`HOW` model calls find their recording: body (method, path, query and JSON body) or conformance (by user message, agent and the agent's call index, as ADK's ReplayPlugin keys them; body differences are reported as findings, not failures)"),
			boolFlag("allow-repeats", "once a request's recordings are used up, keep serving the last one (polling, load tests)"),
			boolFlag("replay-timing", "wait the recorded delays before answers and between SSE events (default: instant)"),
			allowEmptyFlag(),
			boolFlag("watch", "reload cassettes edited on disk while serving; a broken edit is reported and the last good version keeps serving"),
			&cli.StringSliceFlag{Name: "fault", Usage: "answer one request with a fault instead of its recording, as `'WHERE: WHAT'` (e.g. 'call 1: 429', 'invocation 2 step 0: reset after 1 events'; docs/resilience.md); repeatable", EnvVars: envFor("fault")},
			stringFlag("faults", "", "read more faults from `FILE`, a YAML \"faults:\" list of 'WHERE: WHAT' specs"),
			toolFakesFlag(),
			boolFlag("closed-world", "fail the run on any tool request (HTTP, MCP, A2A) that is neither recorded exactly nor faked, naming it, in lenient mode too (docs/mcp.md)"),
			&cli.IntFlag{Name: "sample", Usage: "replay sample `N` of the cassettes (NAME@N, recorded by record --samples); default: a folder holding samples replays COMMAND once per sample, in turn", EnvVars: envFor("sample")},
			boolFlag("check", "read every cassette in the folder at start: one that does not load fails the run before COMMAND starts, and recordings of cassettes no request opened are reported unused (default: each cassette is read when a request first names it)"),
		),
		Action:       func(c *cli.Context) error { return runSamples(c, proxy.ModeReplay) },
		OnUsageError: commandUsageError,
	}
}

func toolFakesFlag() cli.Flag {
	return stringFlag("tool-fakes", "", "answer the tool calls a YAML `FILE` of fakes declares (MCP tools, A2A agents, HTTP hosts) instead of their recordings and servers, consumed in order (docs/mcp.md)")
}

// commandUsageError keeps a flag mistake to one line instead of the whole help.
func commandUsageError(c *cli.Context, err error, _ bool) error {
	return usageErrorf("%s: %v (see 'adkproxy %s --help')", c.Command.Name, err, c.Command.Name)
}

// adkVersionFlag is --adk-version: the ADK release whose rules apply where
// releases differ (docs/scoring.md, Rules by ADK version).
func adkVersionFlag() cli.Flag {
	return stringFlag("adk-version", "", "follow the rules of ADK `VERSION` where ADK releases differ (1.18, or latest; default: the config's adkproxy.adk_version, else latest): stemming, the JSON result's keys, rubric lists in judge prompts, invocations at a tool confirmation")
}

// applyADKVersion sets cfg's ADK release from --adk-version when it is
// given (cfg may be nil: the flag is still checked), so that score and
// simulate go through the one setting.
func applyADKVersion(c *cli.Context, cfg *scoring.Config) error {
	v := c.String("adk-version")
	if v == "" {
		return nil
	}
	if _, err := adkversion.Parse(v); err != nil {
		return usageErrorf("%s: --adk-version: %v", c.Command.Name, err)
	}
	if cfg != nil {
		cfg.Adkproxy.ADKVersion = v
	}
	return nil
}
