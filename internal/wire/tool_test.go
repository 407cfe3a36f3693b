package wire

import (
	"testing"

	"github.com/adkproxy/adkproxy/cassettes"
)

func TestToolOf(t *testing.T) {
	x := &cassettes.Exchange{
		Request:  cassettes.Request{Scheme: "https", Host: "weather.example.com", Method: "GET", Path: "/v1/current", Query: "city=Paris&units=c"},
		Response: cassettes.Response{Status: 200, Body: []byte(`{"temp_c":18}`)},
	}
	got, ok := ToolOf(x)
	if !ok || got.Name != "GET weather.example.com/v1/current" || string(got.Arguments) != `{"city":["Paris"],"units":["c"]}` || string(got.Result) != `{"temp_c":18}` || got.Status != 200 {
		t.Fatalf("%v %+v", ok, got)
	}
	x.Request.Method, x.Request.Body = "POST", []byte(`{"q":1}`)
	if got, _ := ToolOf(x); string(got.Arguments) != `{"q":1}` {
		t.Errorf("a body's arguments: %s", got.Arguments)
	}
	if _, ok := ToolOf(exchange(generatePath, "{}", "{}")); ok {
		t.Error("a model call read as a tool")
	}
}
