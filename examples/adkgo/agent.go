package main

import (
	"fmt"

	"google.golang.org/adk/agent"
	"google.golang.org/adk/agent/llmagent"
	"google.golang.org/adk/model"
	"google.golang.org/adk/tool"
	"google.golang.org/adk/tool/functiontool"
)

// cityArgs are the arguments of both tools.
type cityArgs struct {
	City string `json:"city" jsonschema:"the city, e.g. Lisbon"`
}

type weather struct {
	City     string `json:"city"`
	Forecast string `json:"forecast"`
}

type localTime struct {
	City string `json:"city"`
	Time string `json:"time"`
}

// Fixed answers: the demo is about the agent's traffic, not the data.
var (
	forecasts = map[string]string{"Lisbon": "21°C and sunny", "Paris": "18°C and clear", "Tokyo": "24°C and humid"}
	clocks    = map[string]string{"Lisbon": "14:05", "Paris": "15:05", "Tokyo": "22:05"}
)

// newAgent builds the demo's agent tree on m: a trip planner with two
// function tools and a packing advisor it transfers to.
func newAgent(m model.LLM) (agent.Agent, error) {
	getWeather, err := functiontool.New(functiontool.Config{Name: "get_weather", Description: "Returns today's weather in a city."},
		func(_ agent.ToolContext, a cityArgs) (weather, error) {
			f, ok := forecasts[a.City]
			if !ok {
				return weather{}, fmt.Errorf("no forecast for %q", a.City)
			}
			return weather{City: a.City, Forecast: f}, nil
		})
	if err != nil {
		return nil, err
	}
	getTime, err := functiontool.New(functiontool.Config{Name: "get_local_time", Description: "Returns the local time in a city."},
		func(_ agent.ToolContext, a cityArgs) (localTime, error) {
			c, ok := clocks[a.City]
			if !ok {
				return localTime{}, fmt.Errorf("no clock for %q", a.City)
			}
			return localTime{City: a.City, Time: c}, nil
		})
	if err != nil {
		return nil, err
	}
	packer, err := llmagent.New(llmagent.Config{
		Name:        "packing_advisor",
		Model:       m,
		Description: "Suggests what to pack for a trip, given the weather.",
		Instruction: "Suggest what to pack in one short sentence, using the weather already discussed.",
	})
	if err != nil {
		return nil, err
	}
	return llmagent.New(llmagent.Config{
		Name:        "trip_planner",
		Model:       m,
		Description: "Answers questions about a trip: weather, local time; hands packing questions on.",
		Instruction: "Answer with the tools. For what to pack, transfer to packing_advisor.",
		Tools:       []tool.Tool{getWeather, getTime},
		SubAgents:   []agent.Agent{packer},
	})
}
