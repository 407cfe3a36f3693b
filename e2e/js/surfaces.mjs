// The REST surfaces beside generateContent through the official JS client
// @google/genai: a file upload of two chunks, a cached content used by a
// generateContent, a batch polled until it is done, and an Interactions API
// chain. Prints one JSON object on stdout; e2e/js_surfaces_test.go runs it
// under `adkproxy record` and `adkproxy replay` and compares the outputs, so
// only what comes from the API's answers is printed.
//
// The client is created with no baseUrl: GOOGLE_GEMINI_BASE_URL, set by
// adkproxy for the command it wraps, sends it to the proxy.

import { GoogleGenAI } from '@google/genai';

const model = 'gemini-2.5-flash';
const ai = new GoogleGenAI({ apiKey: process.env.GOOGLE_API_KEY });

// A little over 8 MiB: the client sends it in two chunks.
function fileBytes() {
  const b = new Uint8Array(8 * 1024 * 1024 + 4096);
  for (let i = 0; i < b.length; i++) b[i] = (i * 31 + (i >> 12)) & 0xff;
  return b;
}

async function upload() {
  const f = await ai.files.upload({
    file: new Blob([fileBytes()], { type: 'application/octet-stream' }),
    config: { mimeType: 'application/octet-stream', displayName: 'data.bin' },
  });
  const got = await ai.files.get({ name: f.name });
  return { name: f.name, sizeBytes: f.sizeBytes, sha256Hash: f.sha256Hash, state: got.state, displayName: got.displayName };
}

async function cache() {
  const c = await ai.caches.create({
    model,
    config: { contents: [{ role: 'user', parts: [{ text: 'A long manual about foxes.' }] }], ttl: '600s' },
  });
  const r = await ai.models.generateContent({ model, contents: 'Summarise the manual.', config: { cachedContent: c.name } });
  return { name: c.name, expireTime: c.expireTime, text: r.text };
}

async function batch() {
  let job = await ai.batches.create({
    model,
    src: [{ contents: [{ role: 'user', parts: [{ text: 'first' }] }] }, { contents: [{ role: 'user', parts: [{ text: 'second' }] }] }],
    config: { displayName: 'js-batch' },
  });
  const states = [job.state];
  for (let polls = 0; job.state !== 'JOB_STATE_SUCCEEDED'; polls++) {
    if (polls > 10) throw new Error('the batch never finished');
    job = await ai.batches.get({ name: job.name });
    states.push(job.state);
  }
  const answers = (job.dest?.inlinedResponses ?? []).map((r) => r.response?.candidates?.[0]?.content?.parts?.[0]?.text);
  return { name: job.name, states, answers };
}

// An Interactions API chain: the second turn names the first.
async function interactions() {
  const first = await ai.interactions.create({ model, input: 'Hello' });
  const second = await ai.interactions.create({ model, input: 'And again', previous_interaction_id: first.id });
  return { ids: [first.id, second.id], outputs: [first.outputs, second.outputs] };
}

const out = { upload: await upload(), cache: await cache(), batch: await batch(), interactions: await interactions() };
console.log(JSON.stringify(out));
