// A weather agent on the official JS client @google/genai, for
// e2e/fake_test.go: two user turns, each answered through a get_weather
// tool call, the second streamed, then a token count. It prints what the
// model said, one JSON object on stdout, so a recording (from
// `adkproxy fake`) and its replay can be compared.
//
// The client gets no baseUrl and its key from GOOGLE_API_KEY: adkproxy
// sets both for the command it wraps.

import { GoogleGenAI, Type } from '@google/genai';

const model = 'gemini-2.5-flash';
const ai = new GoogleGenAI({ apiKey: process.env.GOOGLE_API_KEY });
const tools = [
  {
    functionDeclarations: [
      {
        name: 'get_weather',
        description: 'Returns the current weather in a city.',
        parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING } }, required: ['city'] },
      },
    ],
  },
];
const temps = { Paris: 18, Tokyo: 24 };

async function ask(history, stream) {
  if (!stream) {
    const r = await ai.models.generateContent({ model, contents: history, config: { tools } });
    return { parts: r.candidates[0].content.parts, usage: r.usageMetadata, finishReason: r.candidates[0].finishReason };
  }
  const parts = [];
  let usage;
  let finishReason;
  for await (const c of await ai.models.generateContentStream({ model, contents: history, config: { tools } })) {
    parts.push(...(c.candidates?.[0]?.content?.parts ?? []));
    usage = c.usageMetadata ?? usage;
    finishReason = c.candidates?.[0]?.finishReason ?? finishReason;
  }
  return { parts, usage, finishReason, events: parts.length };
}

const out = { turns: [] };
const history = [];
for (const [i, question] of ['What is the weather in Paris?', 'And in Tokyo?'].entries()) {
  history.push({ role: 'user', parts: [{ text: question }] });
  const turn = { question, steps: [] };
  for (;;) {
    const answer = await ask(history, i === 1);
    turn.steps.push(answer);
    history.push({ role: 'model', parts: answer.parts });
    const call = answer.parts.find((p) => p.functionCall)?.functionCall;
    if (!call) break;
    history.push({
      role: 'user',
      parts: [{ functionResponse: { name: call.name, response: { temp_c: temps[call.args.city] } } }],
    });
  }
  out.turns.push(turn);
}
out.tokens = (await ai.models.countTokens({ model, contents: history })).totalTokens;
process.stdout.write(JSON.stringify(out) + '\n');
