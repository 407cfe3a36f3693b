package adkapi

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

// adkPythonEvent is an event as ADK for Python 1.18 writes it
// (Event.model_dump_json(by_alias=True, exclude_none=True)): its byte
// fields are URL-safe base64.
const adkPythonEvent = `{"content":{"parts":[{"text":"hi","thoughtSignature":"-_-_AQI="},{"inlineData":{"data":"__79_A==","mimeType":"image/png"}}],"role":"model"},"invocationId":"i1","author":"m","actions":{"stateDelta":{},"artifactDelta":{},"requestedAuthConfigs":{},"requestedToolConfirmations":{}},"id":"9f73ab8e","timestamp":1796165959.148537}`

func checkPythonEvent(t *testing.T, raw []byte) {
	t.Helper()
	var ev Event
	if err := json.Unmarshal(raw, &ev); err != nil {
		t.Fatalf("reading ADK Python's event: %v", err)
	}
	parts := ev.Content.Parts
	if len(parts) != 2 || !bytes.Equal(parts[0].ThoughtSignature, []byte{0xfb, 0xff, 0xbf, 1, 2}) || !bytes.Equal(parts[1].InlineData.Data, []byte{0xff, 0xfe, 0xfd, 0xfc}) {
		t.Fatalf("bytes decoded wrong: %+v", parts)
	}
	if !bytes.Equal(ev.Raw, raw) {
		t.Fatalf("Raw is not the event as sent")
	}
	// A session read back holds the same events.
	var s Session
	if err := json.Unmarshal([]byte(`{"id":"s","events":[`+string(raw)+`]}`), &s); err != nil || len(s.Events) != 1 {
		t.Fatalf("reading a session with ADK Python's event: %v", err)
	}
}

func TestURLSafeBase64FromADKPython(t *testing.T) {
	checkPythonEvent(t, []byte(adkPythonEvent))
	// Standard base64, unpadded URL-safe and plain text are all still read.
	for _, sig := range []string{"+/+/AQI=", "-_-_AQI"} {
		var ev Event
		if err := json.Unmarshal([]byte(`{"content":{"parts":[{"text":"a-b_c","thoughtSignature":"`+sig+`"}]}}`), &ev); err != nil {
			t.Fatalf("%s: %v", sig, err)
		}
		if p := ev.Content.Parts[0]; p.Text != "a-b_c" || !bytes.Equal(p.ThoughtSignature, []byte{0xfb, 0xff, 0xbf, 1, 2}) {
			t.Fatalf("%s: %+v", sig, p)
		}
	}
}

// TestURLSafeBase64FromVendoredADK has the vendored ADK for Python write
// the event itself.
func TestURLSafeBase64FromVendoredADK(t *testing.T) {
	adk := testutil.SharedDir(t, "vendor", "adk-python")
	py, err := exec.LookPath("python3")
	if err != nil {
		testutil.Require(t, "python3")
	}
	cmd := exec.Command(py, "-c", `
from google.adk.events import Event
from google.genai import types
e = Event(author='m', invocation_id='i1', content=types.Content(role='model', parts=[
    types.Part(text='hi', thought_signature=bytes([0xfb, 0xff, 0xbf, 1, 2])),
    types.Part(inline_data=types.Blob(mime_type='image/png', data=bytes([0xff, 0xfe, 0xfd, 0xfc])))]))
print(e.model_dump_json(by_alias=True, exclude_none=True))
`)
	cmd.Env = append(os.Environ(), "PYTHONPATH="+filepath.Clean(adk))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("vendored ADK: %v\n%s", err, out)
	}
	checkPythonEvent(t, bytes.TrimSpace(out))
}
