// A Live API session through the official JS client @google/genai: a
// weather question answered through a tool call, then a second turn. It
// prints what the client received as one JSON object on stdout;
// e2e/live_test.go runs it under `adkproxy record` and `adkproxy replay` and
// compares the two outputs.
//
// The client is created with no baseUrl: GOOGLE_GEMINI_BASE_URL (http://),
// set by adkproxy for the command it wraps, sends it to the proxy, and the
// SDK turns http: into ws: for the Live connection.
//
// Environment:
//   GOOGLE_API_KEY  the key (a placeholder set by adkproxy in replay)
//   SCENARIO_CITY   the city in the weather question (default Paris)
//   SCENARIO_KEEP_GOING=1  print a failure as {"error": ...} and exit 0,
//                   like an agent that swallows errors

import { GoogleGenAI, Modality, Type } from '@google/genai';

const city = process.env.SCENARIO_CITY || 'Paris';
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

// Messages arrive through a callback; waiters take them in order.
const queue = [];
let waiting = null;
let closed = null;
const next = () =>
  new Promise((resolve, reject) => {
    if (queue.length) return resolve(queue.shift());
    if (closed) return reject(new Error(`connection closed: ${closed.code} ${closed.reason}`));
    waiting = { resolve, reject };
  });

const session = await ai.live.connect({
  model: 'gemini-live-2.5-flash-preview',
  config: { responseModalities: [Modality.TEXT], tools },
  callbacks: {
    onmessage: (m) => {
      if (waiting) {
        const w = waiting;
        waiting = null;
        w.resolve(m);
      } else queue.push(m);
    },
    onerror: () => {},
    onclose: (e) => {
      closed = { code: e.code, reason: e.reason };
      if (waiting) waiting.reject(new Error(`connection closed: ${e.code} ${e.reason}`));
    },
  },
});

const seen = [];
async function turn() {
  let text = '';
  for (;;) {
    const m = await next();
    if (m.toolCall) {
      const responses = m.toolCall.functionCalls.map((c) => {
        seen.push({ toolCall: { name: c.name, args: c.args } });
        return { id: c.id, name: c.name, response: { city: c.args.city, temp_c: 18, sky: 'sunny' } };
      });
      session.sendToolResponse({ functionResponses: responses });
    } else if (m.serverContent) {
      for (const p of m.serverContent.modelTurn?.parts ?? []) text += p.text ?? '';
      if (m.serverContent.turnComplete) seen.push({ text });
    } else if (m.usageMetadata) {
      seen.push({ usage: m.usageMetadata });
      return;
    }
  }
}

try {
  session.sendClientContent({ turns: [{ role: 'user', parts: [{ text: `What is the weather in ${city}?` }] }], turnComplete: true });
  await turn();
  session.sendClientContent({ turns: [{ role: 'user', parts: [{ text: 'Thanks' }] }], turnComplete: true });
  await turn();
} catch (err) {
  process.stdout.write(JSON.stringify({ seen, error: String(err?.message ?? err) }) + '\n');
  process.exit(process.env.SCENARIO_KEEP_GOING === '1' ? 0 : 1);
}
session.close();
process.stdout.write(JSON.stringify({ seen }) + '\n');
