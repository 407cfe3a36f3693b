// The Vercel AI SDK (ai + @ai-sdk/google): generateText with two tools,
// the second turn with streamText. Its base URL must end in /v1beta; its
// key is GOOGLE_GENERATIVE_AI_API_KEY.
import { generateText, streamText, tool, isStepCount } from "ai";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { z } from "zod";
import { weatherTool, weatherDesc, timeDesc, questions, system, getWeather, getTime, done } from "./tools.mjs";

const google = createGoogleGenerativeAI({ baseURL: process.env.ADKPROXY_URL + "/v1beta" });
const model = google("gemini-2.5-flash");
const city = z.object({ city: z.string() });
const tools = {
  [weatherTool]: tool({ description: weatherDesc, inputSchema: city, execute: async (a) => getWeather(a) }),
  get_time: tool({ description: timeDesc, inputSchema: city, execute: async (a) => getTime(a) }),
};
const messages = [];
const answers = [];
for (const [turn, q] of questions.entries()) {
  messages.push({ role: "user", content: q });
  const req = { model, system, messages, tools, stopWhen: isStepCount(5) };
  if (turn === 0) {
    const r = await generateText(req);
    messages.push(...r.response.messages);
    answers.push(r.text);
  } else {
    const r = streamText(req);
    for await (const _ of r.textStream);
    messages.push(...(await r.response).messages);
    answers.push(await r.text);
  }
}
done(answers);
