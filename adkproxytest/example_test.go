package adkproxytest_test

import (
	"context"
	"fmt"
	"testing"

	"google.golang.org/genai"

	"github.com/adkproxy/adkproxy/adkproxytest"
)

// A test replays the conversation recorded in
// testdata/cassettes/TestWeatherAgent.yaml, or records it with
// ADKPROXY_RECORD=1. Any request that differs from the recording fails the
// test when it ends, with the field-level difference.
func ExampleStart() {
	_ = func(t *testing.T) { // func TestWeatherAgent(t *testing.T)
		p := adkproxytest.Start(t, "testdata/cassettes")
		client, err := genai.NewClient(t.Context(), p.ClientConfig())
		if err != nil {
			t.Fatal(err)
		}
		resp, err := client.Models.GenerateContent(t.Context(), "gemini-2.5-flash", genai.Text("What is the weather in Paris?"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Text() == "" {
			t.Error("no answer")
		}
	}
}

// New and Close do what Start does without a test: here the cassette
// testdata/cassettes/weather.yaml answers offline, with no API key.
func ExampleNew() {
	p, err := adkproxytest.New("testdata/cassettes", "weather")
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	client, err := genai.NewClient(ctx, p.ClientConfig())
	if err != nil {
		fmt.Println(err)
		return
	}
	resp, err := client.Models.GenerateContent(ctx, "gemini-2.5-flash", genai.Text("What is the weather in Paris?"), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Text())
	if err := p.Close(); err != nil { // the run's verdict: nil when every recording was used as recorded
		fmt.Println(err)
	}
	// Output: You said: What is the weather in Paris?
}
