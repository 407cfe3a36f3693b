// A two-turn conversation with an agent built on the official Agent
// Development Kit for JavaScript, @google/adk, printed as a single JSON
// object on stdout. e2e/adk_test.go runs it under `adkproxy record` and
// `adkproxy replay` and compares the two outputs, so only fields that come
// from the model's answers and the tool are printed, never anything ADK
// makes up per run (event ids, function call ids, timestamps).
//
// The root agent weather_agent has a function tool get_weather and a
// sub-agent travel_agent it can transfer to. Turn 1 asks about the weather
// (the root calls get_weather, then answers); turn 2 asks for travel_agent
// by name (the root transfers to it, and travel_agent answers). The fake
// upstream (internal/fakegemini) plays both agents from these texts.
//
// Nothing here names a server: the model is reached only through
// GOOGLE_GEMINI_BASE_URL, which adkproxy sets for the command it wraps.
//
// Environment:
//   GOOGLE_API_KEY  the key (a placeholder set by adkproxy in replay)
//   TOOL_TEMP       the temperature get_weather reports (default 18)
//   AGENT_CASSETTE  when set, the agents' model is new Gemini({model, headers})
//                   with the header X-Adkproxy-Cassette naming this cassette,
//                   as docs/sidecar.md shows for ADK JS

import { FunctionTool, Gemini, InMemoryRunner, LlmAgent, LogLevel, setLogger } from '@google/adk';
import { Type } from '@google/genai';

// ADK's default logger writes to stdout, which must hold nothing but the
// result: send its warnings and errors to stderr instead.
let logLevel = LogLevel.WARN;
const toStderr = (level) => (...args) => {
  if (level >= logLevel) console.error(`adk ${LogLevel[level]}:`, ...args);
};
setLogger({
  log: (level, ...args) => toStderr(level)(...args),
  debug: toStderr(LogLevel.DEBUG),
  info: toStderr(LogLevel.INFO),
  warn: toStderr(LogLevel.WARN),
  error: toStderr(LogLevel.ERROR),
  setLogLevel: (level) => {
    logLevel = level;
  },
});

const model = process.env.AGENT_CASSETTE
  ? new Gemini({ model: 'gemini-2.5-flash', headers: { 'X-Adkproxy-Cassette': process.env.AGENT_CASSETTE } })
  : 'gemini-2.5-flash';
const appName = 'adkproxy_e2e';
const userId = 'e2e_user';
const turns = ['What is the weather in Paris?', 'Please transfer me to travel_agent to book a trip to Paris.'];

if (!process.env.GOOGLE_GEMINI_BASE_URL) {
  console.error('agent: GOOGLE_GEMINI_BASE_URL is not set; run me under adkproxy');
  process.exit(2);
}

const getWeather = new FunctionTool({
  name: 'get_weather',
  description: 'Returns the current weather in a city.',
  parameters: {
    type: Type.OBJECT,
    properties: { city: { type: Type.STRING, description: 'The city name.' } },
    required: ['city'],
  },
  execute: ({ city }) => ({ city, temp_c: Number(process.env.TOOL_TEMP || 18) }),
});

const travelAgent = new LlmAgent({
  name: 'travel_agent',
  model,
  description: 'Books trips and plans travel.',
  instruction: 'You book trips. Confirm the booking in one sentence.',
});

const weatherAgent = new LlmAgent({
  name: 'weather_agent',
  model,
  description: 'Answers questions about the weather.',
  instruction: 'Answer weather questions with the get_weather tool. Transfer travel requests to travel_agent.',
  tools: [getWeather],
  subAgents: [travelAgent],
});

const runner = new InMemoryRunner({ agent: weatherAgent, appName });
const session = await runner.sessionService.createSession({ appName, userId });

const out = { turns: [] };
for (const text of turns) {
  const turn = { user: text, functionCalls: [], functionResponses: [], transfers: [], final: [] };
  const events = runner.runAsync({
    userId,
    sessionId: session.id,
    newMessage: { role: 'user', parts: [{ text }] },
  });
  for await (const event of events) {
    if (event.errorCode || event.errorMessage) {
      console.error(`agent: ${event.author}: model error ${event.errorCode}: ${event.errorMessage}`);
      process.exit(1);
    }
    for (const part of event.content?.parts ?? []) {
      if (part.functionCall) {
        turn.functionCalls.push({ author: event.author, name: part.functionCall.name, args: part.functionCall.args });
      }
      if (part.functionResponse) {
        turn.functionResponses.push({
          author: event.author,
          name: part.functionResponse.name,
          response: part.functionResponse.response,
        });
      }
    }
    if (event.actions?.transferToAgent) {
      turn.transfers.push(event.actions.transferToAgent);
    }
    const said = (event.content?.parts ?? []).filter((p) => p.text && !p.thought).map((p) => p.text).join('');
    if (said && !event.partial) {
      turn.final.push({ author: event.author, text: said });
    }
  }
  out.turns.push(turn);
}
process.stdout.write(JSON.stringify(out) + '\n');
