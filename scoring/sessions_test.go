package scoring

import (
	"path/filepath"
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
	"github.com/adkproxy/adkproxy/internal/testing/testutil"
)

func TestSessionsOfTheShippedExample(t *testing.T) {
	cs, err := cassettes.LoadDir(filepath.Join(testutil.RepoRoot(), "examples", "weather", "cassettes"))
	if err != nil {
		t.Fatal(err)
	}
	sessions := SessionsOf(cs)
	if len(sessions) != 1 || len(sessions[0].Invocations) != 2 {
		t.Fatalf("sessions %+v", sessions)
	}
	first := sessions[0].Invocations[0]
	if first.UserText != "What is the weather in Paris?" || len(first.ToolCalls) != 1 || first.ToolCalls[0].Name != "get_weather" ||
		first.ToolCalls[0].Args["city"] != "Paris" || first.FinalResponse != "It is 18°C in Paris, clear." {
		t.Fatalf("invocation 1 %+v", first)
	}
	if len(first.Steps) != 2 || first.Steps[0].Usage.Total != 7 || first.Steps[1].ToolResults[0].Response["temp_c"] != float64(18) {
		t.Fatalf("steps %+v", first.Steps)
	}
}
