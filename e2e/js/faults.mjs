// One weather question through the official JS client @google/genai: the
// model calls get_weather, the agent answers it, the model says the
// weather. e2e/faults_test.go replays it under `adkproxy replay --fault`
// to show what the client does with each fault. It prints one JSON object:
// {"text": ...} when it got the answer, else {"error": ..., "finishReason": ...}
// and exits 0 either way, so adkproxy's status tells whether recordings
// went unused.
//
// Environment:
//   FAULT_STREAM=1  use generateContentStream
//   RETRIES=N       let the client retry a failed call N times (retryOptions)

import { GoogleGenAI, Type } from '@google/genai';

const model = 'gemini-2.5-flash';
const retries = Number(process.env.RETRIES || 0);
const httpOptions = retries > 0 ? { retryOptions: { attempts: retries + 1, initialDelay: 0.01, jitter: 0 } } : {};
const ai = new GoogleGenAI({ apiKey: process.env.GOOGLE_API_KEY, httpOptions });
const stream = process.env.FAULT_STREAM === '1';
const config = {
  tools: [
    {
      functionDeclarations: [
        { name: 'get_weather', parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING } } } },
      ],
    },
  ],
};

async function call(contents) {
  if (!stream) {
    const r = await ai.models.generateContent({ model, contents, config });
    return { parts: r.candidates?.[0]?.content?.parts, finishReason: r.candidates?.[0]?.finishReason, candidates: r.candidates?.length ?? 0 };
  }
  let parts;
  let finishReason;
  let candidates = 0;
  for await (const c of await ai.models.generateContentStream({ model, contents, config })) {
    candidates = Math.max(candidates, c.candidates?.length ?? 0);
    const p = c.candidates?.[0]?.content?.parts;
    if (p) parts = (parts ?? []).concat(p);
    finishReason = c.candidates?.[0]?.finishReason ?? finishReason;
  }
  return { parts, finishReason, candidates };
}

const history = [{ role: 'user', parts: [{ text: 'What is the weather in Paris?' }] }];
let out;
try {
  for (let i = 0; i < 3 && !out; i++) {
    const r = await call(history);
    if (!r.parts?.length) {
      out = { error: 'no content', finishReason: r.finishReason, candidates: r.candidates };
      break;
    }
    const fc = r.parts.find((p) => p.functionCall)?.functionCall;
    if (!fc) {
      out = { text: r.parts.map((p) => p.text ?? '').join('') };
      break;
    }
    history.push({ role: 'model', parts: r.parts });
    history.push({ role: 'user', parts: [{ functionResponse: { name: fc.name, response: { temp_c: 18 } } }] });
  }
} catch (err) {
  out = { error: String(err?.message ?? err).split('\n')[0] };
}
process.stdout.write(JSON.stringify(out) + '\n');
