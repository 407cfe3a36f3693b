// The catalogue of ADK's pre-built personas and behaviors, in adkproxy's
// own words: what each behavior asks of the simulated user and the
// rubrics a judge fails a user turn by.

package scenarios

import (
	"maps"
	"slices"
)

// The pre-built behaviors. Name is ADK's (it labels the behavior in
// prompts); the other texts are adkproxy's. Texts may hold
// {{ stop_signal }}.
var (
	advanceDetailOriented = Behavior{
		Name:        "Advance in the Agent succeeds", // sic, as ADK names it
		Description: "Moves the conversation on to the next goal of the plan once the agent has achieved the current one, stating each new goal with every detail it needs.",
		Instructions: []string{
			"When the agent has achieved the current goal, turn to the next goal of the conversation plan.",
			"Skip any goal of the plan that the agent has already achieved.",
			"State a new goal together with every detail from the plan that the agent needs to achieve it.",
			"Pursue one goal per turn.",
		},
		ViolationRubrics: []string{
			"The user turn asks again for a goal the agent has already achieved.",
			"The user turn supplies again the details of a goal the agent has already achieved.",
			"The user turn goes along with a topic or task that is not part of the conversation plan.",
			"The user turn pursues a goal that the conversation plan does not contain.",
			"The user turn gives details (a phone number, an address, a name…) found neither in the plan nor in the agent's messages.",
			"The user turn names a goal without the details the plan provides for it, leaving the agent to ask for them.",
			"The user turn pursues more than one goal at once.",
		},
	}
	advanceGoalOriented = Behavior{
		Name:        "Advance if the Agent succeeds",
		Description: "Moves the conversation on to the next goal of the plan once the agent has achieved the current one, naming only the goal and keeping the details until the agent asks.",
		Instructions: []string{
			"When the agent has achieved the current goal, turn to the next goal of the conversation plan.",
			"Skip any goal of the plan that the agent has already achieved.",
			"Name only the high-level goal; give its details only when the agent asks for them.",
			"Pursue one goal per turn.",
		},
		ViolationRubrics: []string{
			"The user turn asks again for a goal the agent has already achieved, or supplies its details again.",
			"The user turn pursues a goal, or gives a detail, found neither in the plan nor in the agent's messages.",
			"The user turn offers specific details before the agent has asked for them.",
			"The user turn pursues more than one goal at once.",
		},
	}
	answerRelevantOnly = Behavior{
		Name:        "Answer only relevant questions",
		Description: "Answers the agent's questions that serve the plan's goals, from the plan alone, and steers away from the rest.",
		Instructions: []string{
			"Answer a question of the agent only with information the conversation plan holds.",
			"Add nothing the agent did not ask for.",
			"Say so when the plan does not hold the information asked for.",
			"Do not answer questions unrelated to the plan's goals; bring the conversation back to the plan instead.",
		},
		ViolationRubrics: []string{
			"The user turn answers a question of the agent that has nothing to do with the plan's goals.",
		},
	}
	answerAll = Behavior{
		Name:        "Answer all questions",
		Description: "Answers every question the agent asks, from the plan alone, admitting when the plan does not say.",
		Instructions: []string{
			"Answer every question the agent asks, using only the conversation plan.",
			"Add nothing the agent did not ask for.",
			"Reply that you do not know when the plan does not hold the answer.",
		},
		ViolationRubrics: []string{
			"The user turn leaves one of the agent's questions without an answer.",
			"The user turn makes up an answer instead of saying it does not know.",
		},
	}
	correctAgent = Behavior{
		Name:        "Correct the Agent if it makes a mistake",
		Description: "Challenges the agent when it says something wrong or illogical, or does something wrong.",
		Instructions: []string{
			"Point out any statement of the agent that is wrong or does not make sense.",
			"When the agent performs an operation wrongly, ask for it to be put right.",
		},
		ViolationRubrics: []string{
			"The user turn carries on as though wrong information from the agent were right.",
			"The user turn lets a risky assumption of the agent pass (for instance, sending a message whose content the user was never asked for).",
		},
	}
	doNotCorrectAgent = Behavior{
		Name:        "Do not correct the Agent",
		Description: "Never corrects the agent; ends the conversation instead when the agent is wrong.",
		Instructions: []string{
			"When the agent says or does something wrong or illogical, do not correct it: end the conversation by writing {{ stop_signal }}.",
		},
		ViolationRubrics: []string{
			"The user turn corrects the agent.",
		},
	}
	troubleshootOnce = Behavior{
		Name:        "Troubleshoot once (if necessary)",
		Description: "Helps the agent once after its first failure, and not again.",
		Instructions: []string{
			"After the agent's first failure, help it once to get past it.",
			"Help at most once in the whole conversation.",
			"An agent asking a clarifying question has not failed.",
		},
		ViolationRubrics: []string{
			"The user turn ends the conversation straight after the agent's first failure.",
			"After a second failure of the agent the user turn carries on instead of writing {{ stop_signal }}.",
		},
	}
	endLimitedTroubleshooting = Behavior{
		Name:        "End the conversation appropriately",
		Description: "Ends the conversation with the stop signal exactly when there is a reason to stop.",
		Instructions: []string{
			"Write {{ stop_signal }} to end the conversation, and only when one of these holds: the agent has confirmed every goal of the plan as done; the agent handed the conversation over to a human; the agent failed more than once.",
			"Keep count of the agent's failures.",
		},
		ViolationRubrics: []string{
			"A reason to stop holds but the user turn does not write {{ stop_signal }}.",
			"The user turn writes {{ stop_signal }} although no reason to stop holds.",
		},
	}
	endNoTroubleshooting = Behavior{
		Name:        "End the conversation appropriately", // ADK gives both end behaviors one name
		Description: "Ends the conversation with the stop signal exactly when there is a reason to stop; a first failure of the agent is one.",
		Instructions: []string{
			"Write {{ stop_signal }} to end the conversation, and only when one of these holds: the agent has confirmed every goal of the plan as done; the agent handed the conversation over to a human; the agent failed.",
			"Do not help the agent after a failure: the first failure ends the conversation.",
		},
		ViolationRubrics: []string{
			"A reason to stop holds but the user turn does not write {{ stop_signal }}.",
			"The user turn writes {{ stop_signal }} although no reason to stop holds.",
			"The agent has failed and the user turn carries on without writing {{ stop_signal }}.",
		},
	}
	toneProfessional = Behavior{
		Name:        "Professional tone",
		Description: "Writes like a professional: precise and businesslike.",
		Instructions: []string{
			"Use clear, precise wording.",
			"Use no slang, abbreviations or emoji, and no small talk.",
			"Writing {{ stop_signal }} is acceptable language.",
		},
		ViolationRubrics: []string{
			"The user turn uses slang, abbreviations or emoji.",
			"The user turn includes small talk or social filler.",
			"The user turn is a long, dense block of text.",
			"The user turn's tone differs from the user's earlier turns.",
		},
	}
	toneConversational = Behavior{
		Name:        "Conversational tone",
		Description: "Writes like a person chatting: relaxed and natural.",
		Instructions: []string{
			"Sound like an ordinary person in a casual chat.",
			"Avoid stiff, overly polite or purely functional phrasing.",
		},
		ViolationRubrics: []string{
			"The user turn reads like a bare command or is sterile.",
			"The user turn is overly formal or overly polite.",
			"The user turn is a long, dense block of text.",
			"The user turn's tone differs from the user's earlier turns.",
		},
	}
)

// prebuiltBehaviors are the eleven pre-built behaviors by ADK's
// PreBuiltBehaviors enum key.
var prebuiltBehaviors = map[string]Behavior{
	"ADVANCE_DETAIL_ORIENTED":     advanceDetailOriented,
	"ADVANCE_GOAL_ORIENTED":       advanceGoalOriented,
	"ANSWER_RELEVANT_ONLY":        answerRelevantOnly,
	"ANSWER_ALL":                  answerAll,
	"CORRECT_AGENT":               correctAgent,
	"DO_NOT_CORRECT_AGENT":        doNotCorrectAgent,
	"TROUBLESHOOT_ONCE":           troubleshootOnce,
	"END_LIMITED_TROUBLESHOOTING": endLimitedTroubleshooting,
	"END_NO_TROUBLESHOOTING":      endNoTroubleshooting,
	"TONE_PROFESSIONAL":           toneProfessional,
	"TONE_CONVERSATIONAL":         toneConversational,
}

// The pre-built personas, in ADK's behavior order (the order prompts list
// them in).
var prebuilt = []Persona{
	{
		ID:          "EXPERT",
		Description: "A user who knows exactly what they want and how the agent should get there, and has little patience for detours.",
		Behaviors:   []Behavior{advanceDetailOriented, answerRelevantOnly, correctAgent, troubleshootOnce, endLimitedTroubleshooting, toneProfessional},
	},
	{
		ID:          "NOVICE",
		Description: "A user who depends on the agent to get things done, is patient with it, and can neither troubleshoot nor correct it.",
		Behaviors:   []Behavior{advanceGoalOriented, doNotCorrectAgent, answerAll, endNoTroubleshooting, toneConversational},
	},
	{
		ID:          "EVALUATOR",
		Description: "A user whose only aim is to find out whether the agent can carry out the conversation plan.",
		Behaviors:   []Behavior{advanceDetailOriented, answerRelevantOnly, endNoTroubleshooting, doNotCorrectAgent, toneConversational},
	},
}

// PersonaIDs are the pre-built persona ids: EXPERT, NOVICE, EVALUATOR.
func PersonaIDs() []string {
	ids := make([]string, len(prebuilt))
	for i, p := range prebuilt {
		ids[i] = p.ID
	}
	return ids
}

// Prebuilt returns the pre-built persona with this id (a copy the caller
// may change).
func Prebuilt(id string) (Persona, bool) {
	for _, p := range prebuilt {
		if p.ID == id {
			p.Behaviors = slices.Clone(p.Behaviors)
			for i := range p.Behaviors {
				p.Behaviors[i] = p.Behaviors[i].clone()
			}
			return p, true
		}
	}
	return Persona{}, false
}

// BehaviorKeys are the pre-built behaviors' enum keys (ADK's
// PreBuiltBehaviors), sorted.
func BehaviorKeys() []string {
	return slices.Sorted(maps.Keys(prebuiltBehaviors))
}

// PrebuiltBehavior returns the pre-built behavior with this enum key
// ("ANSWER_ALL"), a copy the caller may change.
func PrebuiltBehavior(key string) (Behavior, bool) {
	b, ok := prebuiltBehaviors[key]
	return b.clone(), ok
}

func (b Behavior) clone() Behavior {
	b.Instructions = slices.Clone(b.Instructions)
	b.ViolationRubrics = slices.Clone(b.ViolationRubrics)
	return b
}
