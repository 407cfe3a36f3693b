// The scenarios tests of recorded runs share: a golden run and its
// refactors, each differing in known changes.

package agentscenario

// Weather is a golden run: one agent, one session of two turns,
// each a get_weather call and an answer.
func Weather() *Scenario {
	return &Scenario{
		Agents: map[string]Agent{
			"weather_agent": {Model: "gemini-2.5-flash", Instruction: "You answer questions about the weather.", Tools: []string{"get_weather", "get_time"}, Temperature: 0.2},
		},
		Sessions: [][]Turn{{
			{User: "What is the weather in Paris?", Agents: []string{"weather_agent"}, Replies: map[string][]Reply{"weather_agent": {
				{Calls: []ToolCall{{Name: "get_weather", Args: map[string]any{"city": "Paris", "units": "celsius"}}}},
				{Text: "It is 18°C in Paris, clear."},
			}}},
			{User: "And in Tokyo?", Agents: []string{"weather_agent"}, Replies: map[string][]Reply{"weather_agent": {
				{Calls: []ToolCall{{Name: "get_weather", Args: map[string]any{"city": "Tokyo", "units": "celsius"}}}},
				{Text: "It is 24°C in Tokyo, clear."},
			}}},
		}},
		ToolResults: map[string]map[string]any{"get_weather": {"temp_c": 18, "sky": "clear"}, "get_time": {"time": "10:00"}},
	}
}

// RefactoredWeather differs from Weather in exactly three things:
// one argument changed, one tool call added, one answer reworded.
func RefactoredWeather() *Scenario {
	sc := Weather().Clone()
	sc.Sessions[0][0].Replies["weather_agent"] = []Reply{
		{Calls: []ToolCall{{Name: "get_weather", Args: map[string]any{"city": "Paris", "units": "fahrenheit"}}}},
		{Calls: []ToolCall{{Name: "get_time", Args: map[string]any{"city": "Paris"}}}},
		{Text: "In Paris it is 18°C and clear."},
	}
	return sc
}

// Trip has parallel sub-agents, a transfer, sessions of several
// turns and one session the refactor drops.
func Trip() *Scenario {
	agents := []string{"weather_agent", "time_agent"}
	return &Scenario{
		Agents: map[string]Agent{
			"coordinator":   {Model: "gemini-2.5-flash", Instruction: "You route questions.", Tools: []string{"transfer_to_agent"}},
			"weather_agent": {Model: "gemini-2.5-flash", Instruction: "You answer about the weather.", Tools: []string{"get_weather"}, Temperature: 0.2},
			"time_agent":    {Model: "gemini-2.5-flash", Instruction: "You tell the time.", Tools: []string{"get_time"}},
		},
		Sessions: [][]Turn{
			{
				{User: "Check Paris", Agents: agents, Parallel: true, Replies: map[string][]Reply{
					"weather_agent": {{Calls: []ToolCall{{Name: "get_weather", Args: map[string]any{"city": "Paris"}}}}, {Text: "Sunny in Paris."}},
					"time_agent":    {{Calls: []ToolCall{{Name: "get_time", Args: map[string]any{"city": "Paris"}}}}, {Text: "It is 10:00 in Paris."}},
				}},
				{User: "Thanks", Agents: []string{"time_agent"}, Replies: map[string][]Reply{"time_agent": {{Text: "You are welcome."}}}},
			},
			{
				{User: "Compare Rome and Oslo", Agents: []string{"coordinator", "weather_agent"}, Replies: map[string][]Reply{
					"coordinator": {{Calls: []ToolCall{{Name: "transfer_to_agent", Args: map[string]any{"agent_name": "weather_agent"}}}}, {Text: "Asking the weather agent."}},
					"weather_agent": {
						{Calls: []ToolCall{{Name: "get_weather", Args: map[string]any{"city": "Rome"}}}},
						{Calls: []ToolCall{{Name: "get_weather", Args: map[string]any{"city": "Oslo"}}}},
						{Calls: []ToolCall{{Name: "get_time", Args: map[string]any{"city": "Rome"}}}},
						{Text: "Rome is warmer than Oslo."},
					},
				}},
			},
			{
				{User: "Goodbye", Agents: []string{"time_agent"}, Replies: map[string][]Reply{"time_agent": {{Text: "Bye."}}}},
			},
		},
		ToolResults: map[string]map[string]any{"get_weather": {"sky": "clear"}, "get_time": {"time": "10:00"}, "transfer_to_agent": {}},
	}
}

// RefactoredTrip changes everything a diff classifies in Trip except
// arguments and answers (RefactoredWeather has those).
func RefactoredTrip() *Scenario {
	sc := Trip().Clone()
	w := sc.Agents["weather_agent"]
	w.Model, w.Temperature, w.Instruction = "gemini-2.5-pro", 0.7, "You answer about the weather, briefly."
	w.Tools = []string{"get_weather", "get_forecast"}
	sc.Agents["weather_agent"] = w
	sc.ToolResults["get_time"] = map[string]any{"time": "11:00"}
	s1 := sc.Sessions[0]
	extra := Turn{User: "And tomorrow?", Agents: []string{"time_agent"}, Replies: map[string][]Reply{"time_agent": {{Text: "Tomorrow too."}}}}
	sc.Sessions[0] = []Turn{s1[0], extra, s1[1]}
	rome := sc.Sessions[1][0].Replies["weather_agent"]
	sc.Sessions[1][0].Replies["weather_agent"] = []Reply{rome[1], rome[0], rome[3]} // Oslo first, no get_time
	sc.Sessions = sc.Sessions[:2]
	return sc
}
