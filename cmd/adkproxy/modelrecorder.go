// The in-process recorder of adkproxy's own model calls (the LLM judge,
// the simulated user): its mode from the flags and the key.

package main

import (
	"fmt"

	"github.com/urfave/cli/v2"
	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/internal/engine/inprocess"
	"github.com/adkproxy/adkproxy/proxy"
)

// modelRecorderFlags name one recorder's flags and words.
type modelRecorderFlags struct {
	command string // "score"
	dir     string // "judge-cassettes"
	mode    string // "judge-mode"
	baseURL string // "judge-base-url"
	// what is recorded and by which model, for messages: "the judge's
	// verdicts", "the judge model".
	what, model string
	// rerecord is the hint for a call replay cannot answer.
	rerecord string
	// keyOptional: record mode may start without a Gemini key (no
	// criterion is judged with Gemini: only Vertex AI metrics, or custom
	// metrics that bring their own key).
	keyOptional bool
	// lenient: replay serves a changed call's recording and reports it
	// (Server.Misses); else it refuses the call.
	lenient bool
	// missingIsEmpty: in replay a folder that does not exist holds no
	// calls (record had nothing to ask, so it made none); a call is then
	// a miss with the rerecord hint. Else it is exit 65.
	missingIsEmpty bool
}

// modelRecorder is a running recorder: calls made with client are
// recorded into, or replayed from, dir.
type modelRecorder struct {
	*inProcess
	dir    string
	mode   proxy.Mode
	client *genai.Client
	// chat calls models named "openai/MODEL" through the same recorder.
	chat *inprocess.Chat
}

// startModelRecorder reads the flags of f: record when a key is set,
// else replay, unless the mode flag says.
func startModelRecorder(c *cli.Context, f modelRecorderFlags) (*modelRecorder, error) {
	dir := c.String(f.dir)
	key := apiKey()
	mode := proxy.ModeReplay
	if key != "" {
		mode = proxy.ModeRecord
	}
	if v := c.String(f.mode); v != "" {
		m, err := modelModeFor(v)
		if err != nil {
			return nil, usageErrorf("%s: --%s: %v", f.command, f.mode, err)
		}
		mode = m
	}
	pcfg := proxy.Config{Mode: mode, Dir: dir}
	if mode == proxy.ModeRecord {
		if key == "" && f.keyOptional {
			key = replayKey // nothing will call the Gemini API
		} else if key == "" {
			return nil, usageErrorf("%s: --%s record needs GOOGLE_API_KEY or GEMINI_API_KEY for %s", f.command, f.mode, f.model)
		}
		u, err := parseUpstream("--"+f.baseURL, c.String(f.baseURL))
		if err != nil {
			return nil, withCode(exitUsage, err)
		}
		pcfg.Upstream = u
	} else {
		key = replayKey
		pcfg.Lenient = f.lenient
	}
	rec, err := startInProcess(c, pcfg, inprocess.Options{Rerecord: f.rerecord, Where: "--" + f.dir,
		Missing: fmt.Sprintf("record %s first: --%s record with a key", f.what, f.mode), MissingIsEmpty: f.missingIsEmpty})
	if err != nil {
		return nil, err
	}
	client, err := rec.GeminiClient(key)
	if err != nil {
		rec.Release()
		return nil, fmt.Errorf("%s: the model client: %w", f.command, err)
	}
	return &modelRecorder{inProcess: rec, dir: dir, mode: mode, client: client, chat: rec.Chat(key)}, nil
}
