// An agent on ADK-JS whose get_weather tool comes from an MCP server
// through MCPToolset: over stdio (MCP_STDIO_COMMAND, a JSON array: the
// server's command, prefixed with `adkproxy mcp --`) or Streamable HTTP
// (MCP_URL, reached through HTTP_PROXY). It asks one question and prints, as one JSON object, the
// tool results the agent got and its final text. The model is reached
// only through GOOGLE_GEMINI_BASE_URL, which adkproxy sets; the MCP client
// passes the stdio server a minimal environment (no ADKPROXY_URL).

import { InMemoryRunner, LlmAgent, MCPToolset, setLogger } from '@google/adk';
import { EnvHttpProxyAgent, setGlobalDispatcher } from 'undici';

// Node's fetch reads no proxy variables of its own: the MCP client's and
// the A2A client's requests go through HTTP_PROXY (set by adkproxy) this way.
if (process.env.HTTP_PROXY) setGlobalDispatcher(new EnvHttpProxyAgent());

const toStderr = (...args) => console.error('adk:', ...args);
setLogger({ log: () => {}, debug: () => {}, info: () => {}, warn: toStderr, error: toStderr, setLogLevel: () => {} });

let params;
if (process.env.MCP_URL) {
  params = { type: 'StreamableHTTPConnectionParams', url: process.env.MCP_URL };
} else {
  const [command, ...args] = JSON.parse(process.env.MCP_STDIO_COMMAND);
  params = { type: 'StdioConnectionParams', serverParams: { command, args } };
}
const toolset = new MCPToolset(params);
const agent = new LlmAgent({
  name: 'weather_agent',
  model: 'gemini-2.5-flash',
  instruction: 'Answer weather questions with the get_weather tool.',
  tools: [toolset],
  // CITY, when set, replaces the city the model asked about: the agent's
  // code changed since the recording, and so does the tool's argument.
  beforeToolCallback: process.env.CITY
    ? ({ args }) => {
        args.city = process.env.CITY;
        return undefined;
      }
    : undefined,
});
const runner = new InMemoryRunner({ agent, appName: 'mcp_e2e' });
const session = await runner.sessionService.createSession({ appName: 'mcp_e2e', userId: 'u' });
const out = { tool_results: [], text: '' };
for await (const event of runner.runAsync({
  userId: 'u',
  sessionId: session.id,
  newMessage: { role: 'user', parts: [{ text: process.env.QUESTION || 'What is the weather in Paris?' }] },
})) {
  for (const part of event.content?.parts ?? []) {
    if (part.functionResponse) out.tool_results.push(part.functionResponse.response);
    if (part.text && !part.thought) out.text += part.text;
  }
}
await toolset.close();
console.log(JSON.stringify(out));
