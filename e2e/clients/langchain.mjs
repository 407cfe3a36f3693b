// LangChain.js: ChatGoogleGenerativeAI (baseUrl without a version
// segment) under LangGraph's createReactAgent, the second turn streamed.
import { ChatGoogleGenerativeAI } from "@langchain/google-genai";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { weatherTool, weatherDesc, timeDesc, questions, system, getWeather, getTime, done } from "./tools.mjs";

const llm = (streaming) => new ChatGoogleGenerativeAI({ model: "gemini-2.5-flash", baseUrl: process.env.ADKPROXY_URL, maxRetries: 0, streaming });
const city = z.object({ city: z.string() });
const tools = [
  tool(async (a) => JSON.stringify(getWeather(a)), { name: weatherTool, description: weatherDesc, schema: city }),
  tool(async (a) => JSON.stringify(getTime(a)), { name: "get_time", description: timeDesc, schema: city }),
];
const agent = createReactAgent({ llm: llm(false), tools, prompt: system });
const streamingAgent = createReactAgent({ llm: llm(true), tools, prompt: system }); // streamGenerateContent
let messages = [];
const answers = [];
for (const [turn, q] of questions.entries()) {
  messages.push({ role: "user", content: q });
  if (turn === 0) {
    messages = (await agent.invoke({ messages })).messages;
  } else {
    let last;
    for await (const state of await streamingAgent.stream({ messages }, { streamMode: "values" })) last = state;
    messages = last.messages;
  }
  answers.push(messages[messages.length - 1].content);
}
done(answers);
