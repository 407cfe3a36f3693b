// The 'adkproxy export' command: flags and wiring; the eval set it writes
// is scoring's.

package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/adkproxy/adkproxy/scoring"
	"github.com/urfave/cli/v2"
)

const exportExitStatusHelp = `EXIT STATUS:
   0    success
   64   usage error (unknown flag, missing --cassettes, bad --format)
   65   a cassette is unreadable, corrupt or of an unknown version, the folder is missing, or it holds
        no recorded session
   73   the --out file could not be written`

func exportCommand() *cli.Command {
	return &cli.Command{
		Name:  "export",
		Usage: "write recorded sessions as an ADK eval set (a golden run becomes the expectations)",
		Description: "Writes one eval case per recorded session: eval_id is the cassette's name, or\n" +
			"<cassette>/<session> when a cassette holds several sessions. Each invocation keeps its user\n" +
			"content, final response and intermediate data (tool calls with their arguments, tool\n" +
			"responses, intermediate responses). The file is what 'adk eval' reads and what\n" +
			"'adkproxy score --expected' reads: scoring the same cassettes against it passes every case.\n" +
			"Edit it to loosen or change what is expected.\n\n" + exportExitStatusHelp,
		Flags: []cli.Flag{
			stringFlag("cassettes", "", "`PATH` of the cassettes: a folder, or one cassette file (required; or give it as the argument)"),
			stringFlag("format", "evalset", "output `FORMAT`: evalset (ADK *.evalset.json) or adk-recordings (one cassette as ADK's conformance generated-recordings.yaml)"),
			stringFlag("out", "", "write to `FILE` (atomically) instead of stdout"),
			stringFlag("eval-set-id", "", "eval_set_id of the eval set (default: the --out file name without .evalset.json, else the cassette folder's name)"),
		},
		ArgsUsage:    "[PATH]",
		Action:       runExport,
		OnUsageError: commandUsageError,
	}
}

func runExport(c *cli.Context) error {
	dir, loaded, err := loadCassettes(c)
	if err != nil {
		return err
	}
	switch f := c.String("format"); f {
	case "evalset":
	case "adk-recordings":
		return runExportRecordings(c, loaded)
	default:
		return usageErrorf("export: --format %q: want evalset or adk-recordings", f)
	}
	out := c.String("out")
	id := c.String("eval-set-id")
	if id == "" {
		id = exportDefaultID(dir, out)
	}
	sessions := scoring.SessionsOf(loaded)
	if len(sessions) == 0 {
		return withCode(exitDataErr, fmt.Errorf("export: no recorded session in %s (%d cassette(s)); record one with 'adkproxy record --cassettes %s -- COMMAND'", dir, len(loaded), dir))
	}
	var buf bytes.Buffer
	if err := scoring.WriteEvalSet(&buf, id, sessions); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if err := writeOutput(c, out, buf.Bytes()); err != nil || out == "" {
		return err
	}
	invocations := 0
	for _, s := range sessions {
		invocations += len(s.Invocations)
	}
	fmt.Fprintf(c.App.ErrWriter, "adkproxy: wrote eval set %q to %s: %d eval case(s), %d invocation(s)\n", id, out, len(sessions), invocations)
	return nil
}

// exportDefaultID names the eval set after the output file
// (weather.evalset.json → weather) or else the cassette folder, keeping the
// letters, digits and _ that ADK allows in ids it creates.
func exportDefaultID(dir, out string) string {
	name := filepath.Base(filepath.Clean(dir))
	if out != "" {
		name = filepath.Base(out)
		for _, ext := range []string{".evalset.json", ".json"} {
			if strings.HasSuffix(name, ext) && len(name) > len(ext) {
				name = strings.TrimSuffix(name, ext)
				break
			}
		}
	}
	id := strings.Map(func(r rune) rune {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, name)
	if strings.Trim(id, "_") == "" {
		return "adkproxy"
	}
	return id
}
