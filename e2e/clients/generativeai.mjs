// The legacy @google/generative-ai: a chat with function declarations, the
// base URL as a request option (no version segment: the SDK adds /v1beta),
// the second turn streamed.
import { GoogleGenerativeAI } from "@google/generative-ai";
import { weatherTool, weatherDesc, timeDesc, questions, system, getWeather, getTime, done } from "./tools.mjs";

const genAI = new GoogleGenerativeAI(process.env.GOOGLE_API_KEY); // the key is given in code
const params = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
const model = genAI.getGenerativeModel(
  {
    model: "gemini-2.5-flash",
    systemInstruction: system,
    tools: [{ functionDeclarations: [{ name: weatherTool, description: weatherDesc, parameters: params }, { name: "get_time", description: timeDesc, parameters: params }] }],
  },
  { baseUrl: process.env.ADKPROXY_URL },
);
const run = { [weatherTool]: getWeather, get_time: getTime };
const chat = model.startChat();
const answers = [];
for (const [turn, q] of questions.entries()) {
  let message = q;
  for (;;) {
    let response;
    if (turn === 1) {
      const r = await chat.sendMessageStream(message);
      for await (const _ of r.stream);
      response = await r.response;
    } else {
      response = (await chat.sendMessage(message)).response;
    }
    const calls = response.functionCalls() || [];
    if (!calls.length) {
      answers.push(response.text());
      break;
    }
    message = calls.map((c) => ({ functionResponse: { name: c.name, response: run[c.name](c.args) } }));
  }
}
done(answers);
