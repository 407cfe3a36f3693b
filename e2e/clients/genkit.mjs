// Genkit with @genkit-ai/google-genai: googleAI({baseUrl}) (no version
// segment), two tools, the second turn with generateStream.
import { genkit, z } from "genkit";
import { googleAI } from "@genkit-ai/google-genai";
import { weatherTool, weatherDesc, timeDesc, questions, system, getWeather, getTime, done } from "./tools.mjs";

const ai = genkit({ plugins: [googleAI({ baseUrl: process.env.ADKPROXY_URL })] });
const city = z.object({ city: z.string() });
const tools = [
  ai.defineTool({ name: weatherTool, description: weatherDesc, inputSchema: city }, async (a) => getWeather(a)),
  ai.defineTool({ name: "get_time", description: timeDesc, inputSchema: city }, async (a) => getTime(a)),
];
const model = googleAI.model("gemini-2.5-flash");
let messages = [];
const answers = [];
for (const [turn, q] of questions.entries()) {
  // The history holds the system message after the first turn.
  const req = { model, messages, prompt: q, tools, ...(turn === 0 && { system }) };
  let r;
  if (turn === 0) {
    r = await ai.generate(req);
  } else {
    const s = ai.generateStream(req);
    for await (const _ of s.stream);
    r = await s.response;
  }
  messages = r.messages;
  answers.push(r.text);
}
done(answers);
