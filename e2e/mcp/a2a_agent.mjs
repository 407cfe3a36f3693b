// An agent on ADK-JS that hands travel requests to a remote agent over
// A2A: RemoteA2AAgent, used as an AgentTool, whose card is at A2A_CARD
// (reached through HTTP_PROXY). It asks one question and prints, as one
// JSON object, the tool results the agent got and its final text.
// REQUEST, when set, replaces what the agent asks the remote agent.

import { AgentTool, InMemoryRunner, LlmAgent, RemoteA2AAgent, setLogger } from '@google/adk';
import { EnvHttpProxyAgent, setGlobalDispatcher } from 'undici';

if (process.env.HTTP_PROXY) setGlobalDispatcher(new EnvHttpProxyAgent());
const toStderr = (...args) => console.error('adk:', ...args);
setLogger({ log: () => {}, debug: () => {}, info: () => {}, warn: toStderr, error: toStderr, setLogLevel: () => {} });

const travel = new RemoteA2AAgent({ name: 'travel_agent', description: 'Books trips.', agentCard: process.env.A2A_CARD });
const agent = new LlmAgent({
  name: 'concierge',
  model: 'gemini-2.5-flash',
  instruction: 'Hand travel requests to travel_agent.',
  tools: [new AgentTool({ agent: travel })],
  beforeToolCallback: process.env.REQUEST
    ? ({ args }) => {
        args.request = process.env.REQUEST;
        return undefined;
      }
    : undefined,
});
const runner = new InMemoryRunner({ agent, appName: 'a2a_e2e' });
const session = await runner.sessionService.createSession({ appName: 'a2a_e2e', userId: 'u' });
const out = { tool_results: [], text: '' };
for await (const event of runner.runAsync({
  userId: 'u',
  sessionId: session.id,
  newMessage: { role: 'user', parts: [{ text: 'Book me a trip to Paris.' }] },
})) {
  for (const part of event.content?.parts ?? []) {
    if (part.functionResponse) out.tool_results.push(part.functionResponse.response);
    if (part.text && !part.thought) out.text += part.text;
  }
}
console.log(JSON.stringify(out));
