// One of each Gemini call an agent makes, through the official JS client
// @google/genai, printed as a single JSON object on stdout. e2e/js_test.go
// runs it under `adkproxy record` and `adkproxy replay` and compares the two
// outputs, so only fields that come from the API's answers are printed,
// never anything the client makes up per run (sdkHttpResponse headers).
//
// The client is created with no baseUrl: GOOGLE_GEMINI_BASE_URL, set by
// adkproxy for the command it wraps, is what sends it to the proxy.
//
// Environment:
//   GOOGLE_API_KEY        the key (a placeholder set by adkproxy in replay)
//   SCENARIO_CITY         the city in the weather question (default Paris)
//   SCENARIO_KEEP_GOING=1 report a failed call as {"error": ...} in the
//                         output and exit 0, like an agent that swallows
//                         errors; otherwise the first failure exits 1.

import { GoogleGenAI, Type } from '@google/genai';

const model = 'gemini-2.5-flash';
const city = process.env.SCENARIO_CITY || 'Paris';
const keepGoing = process.env.SCENARIO_KEEP_GOING === '1';

const ai = new GoogleGenAI({ apiKey: process.env.GOOGLE_API_KEY });

const usage = (u) =>
  u && {
    promptTokenCount: u.promptTokenCount,
    candidatesTokenCount: u.candidatesTokenCount,
    totalTokenCount: u.totalTokenCount,
  };

async function generate() {
  const r = await ai.models.generateContent({ model, contents: 'Say hello to adkproxy.' });
  return { text: r.text, finishReason: r.candidates?.[0]?.finishReason, usage: usage(r.usageMetadata) };
}

async function stream() {
  const chunks = [];
  let finishReason;
  let last;
  const s = await ai.models.generateContentStream({ model, contents: 'Stream three short chunks of text back to me.' });
  for await (const c of s) {
    chunks.push(c.text);
    finishReason = c.candidates?.[0]?.finishReason ?? finishReason;
    last = c.usageMetadata ?? last;
  }
  return { chunks, text: chunks.join(''), finishReason, usage: usage(last) };
}

async function weather() {
  const tools = [
    {
      functionDeclarations: [
        {
          name: 'get_weather',
          description: 'Returns the current weather in a city.',
          parameters: {
            type: Type.OBJECT,
            properties: { city: { type: Type.STRING, description: 'The city name.' } },
            required: ['city'],
          },
        },
      ],
    },
  ];
  const question = { role: 'user', parts: [{ text: `What is the weather in ${city}?` }] };
  const first = await ai.models.generateContent({ model, contents: [question], config: { tools } });
  const call = first.functionCalls?.[0];
  if (!call) {
    throw new Error(`get_weather: the model answered without a function call: ${JSON.stringify(first.candidates)}`);
  }
  const result = { city: call.args.city, temp_c: 18 };
  const final = await ai.models.generateContent({
    model,
    contents: [
      question,
      { role: 'model', parts: [{ functionCall: { name: call.name, args: call.args } }] },
      { role: 'user', parts: [{ functionResponse: { name: call.name, response: result } }] },
    ],
    config: { tools },
  });
  return { call: { name: call.name, args: call.args }, text: final.text, usage: usage(final.usageMetadata) };
}

async function countTokens() {
  const r = await ai.models.countTokens({ model, contents: 'How many tokens are in this sentence?' });
  return { totalTokens: r.totalTokens };
}

async function embed() {
  const r = await ai.models.embedContent({ model: 'gemini-embedding-001', contents: 'adkproxy records and replays' });
  return { values: r.embeddings?.map((e) => e.values) };
}

const steps = { generate, stream, weather, countTokens, embed };
const out = {};
for (const [name, step] of Object.entries(steps)) {
  try {
    out[name] = await step();
  } catch (err) {
    if (!keepGoing) {
      console.error(`scenario: ${name} failed: ${err?.stack ?? err}`);
      process.exit(1);
    }
    out[name] = { error: String(err?.message ?? err) };
  }
}
process.stdout.write(JSON.stringify(out) + '\n');
