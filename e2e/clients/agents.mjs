// The OpenAI Agents SDK on Gemini's OpenAI-compatible endpoint: an openai
// client with the base URL ending in /v1beta/openai/, chat completions
// (Gemini serves no Responses API), the second turn streamed. Tracing is
// off: adkproxy sets OPENAI_AGENTS_DISABLE_TRACING=1.
import OpenAI from "openai";
import { Agent, run, tool, setDefaultOpenAIClient, setOpenAIAPI } from "@openai/agents";
import { z } from "zod";
import { weatherTool, weatherDesc, timeDesc, questions, system, getWeather, getTime, done } from "./tools.mjs";

setDefaultOpenAIClient(new OpenAI({ baseURL: process.env.ADKPROXY_URL + "/v1beta/openai/" }));
setOpenAIAPI("chat_completions");
const city = z.object({ city: z.string() });
const agent = new Agent({
  name: "travel",
  instructions: system,
  model: "gemini-2.5-flash",
  tools: [
    tool({ name: weatherTool, description: weatherDesc, parameters: city, execute: async (a) => getWeather(a) }),
    tool({ name: "get_time", description: timeDesc, parameters: city, execute: async (a) => getTime(a) }),
  ],
});
let history = [];
const answers = [];
for (const [turn, q] of questions.entries()) {
  const input = [...history, { role: "user", content: q }];
  let r;
  if (turn === 0) {
    r = await run(agent, input);
  } else {
    r = await run(agent, input, { stream: true });
    for await (const _ of r.toTextStream());
    await r.completed;
  }
  history = r.history;
  answers.push(r.finalOutput);
}
done(answers);
