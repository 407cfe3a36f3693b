// The openai package on Gemini's OpenAI-compatible endpoint: a tool loop
// by hand, the second turn streamed (tool-call deltas put together).
import OpenAI from "openai";
import { weatherTool, weatherDesc, timeDesc, questions, system, getWeather, getTime, done } from "./tools.mjs";

const client = new OpenAI({ baseURL: process.env.ADKPROXY_URL + "/v1beta/openai/" }); // key: OPENAI_API_KEY
const tools = [
  { type: "function", function: { name: weatherTool, description: weatherDesc, parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } } },
  { type: "function", function: { name: "get_time", description: timeDesc, parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } } },
];
const run = { [weatherTool]: getWeather, get_time: getTime };
const messages = [{ role: "system", content: system }];
const answers = [];

async function streamed(req) {
  const stream = await client.chat.completions.create({ ...req, stream: true, stream_options: { include_usage: true } });
  const msg = { role: "assistant", content: "", tool_calls: [] };
  for await (const chunk of stream) {
    const d = chunk.choices[0]?.delta;
    if (!d) continue;
    if (d.content) msg.content += d.content;
    for (const tc of d.tool_calls || []) {
      const c = (msg.tool_calls[tc.index] ||= { id: "", type: "function", function: { name: "", arguments: "" } });
      if (tc.id) c.id = tc.id;
      if (tc.function?.name) c.function.name += tc.function.name;
      if (tc.function?.arguments) c.function.arguments += tc.function.arguments;
    }
  }
  if (!msg.tool_calls.length) delete msg.tool_calls;
  if (!msg.content) msg.content = null;
  return msg;
}

for (const [turn, q] of questions.entries()) {
  messages.push({ role: "user", content: q });
  for (;;) {
    const req = { model: "gemini-2.5-flash", messages, tools };
    const msg = turn === 1 ? await streamed(req) : (await client.chat.completions.create(req)).choices[0].message;
    messages.push(msg);
    if (!msg.tool_calls?.length) {
      answers.push(msg.content);
      break;
    }
    for (const tc of msg.tool_calls) {
      const result = run[tc.function.name](JSON.parse(tc.function.arguments));
      messages.push({ role: "tool", tool_call_id: tc.id, content: JSON.stringify(result) });
    }
  }
}
done(answers);
