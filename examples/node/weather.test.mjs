// node --test with one cassette per test: beforeEach names the cassette
// after the test. Run it under adkproxy:
//
//   adkproxy record --cassettes cassettes -- node --test weather.test.mjs
//   adkproxy replay --cassettes cassettes -- node --test weather.test.mjs
//
// With Jest or Vitest the hook is the same: beforeEach(() => useCassette(
// `weather/${expect.getState().currentTestName}`)).
import { beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { useCassette } from './adkproxy.mjs';

beforeEach(async (t) => {
  await useCassette(`weather/${t.name}`);
});

// ask calls the Gemini API with no SDK; @google/genai and ADK-JS read
// GOOGLE_GEMINI_BASE_URL the same way.
async function ask(question) {
  const base = process.env.GOOGLE_GEMINI_BASE_URL ?? 'https://generativelanguage.googleapis.com';
  const resp = await fetch(`${base}/v1beta/models/gemini-2.5-flash:generateContent`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'x-goog-api-key': process.env.GOOGLE_API_KEY ?? '' },
    body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: question }] }] }),
  });
  const body = await resp.json();
  assert.equal(resp.status, 200, JSON.stringify(body));
  return body.candidates[0].content.parts[0].text;
}

test('answers about Paris', async () => {
  assert.match(await ask(process.env.WEATHER_QUESTION ?? 'What is the weather in Paris?'), /Paris/);
});

test('answers about Tokyo', async () => {
  assert.match(await ask('What is the weather in Tokyo?'), /Tokyo/);
});
