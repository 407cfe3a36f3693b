// A weather and time agent on the official JS client @google/genai: the
// code under test of e2e's Vitest and Jest helper test. The client is made
// per call, so it reads GOOGLE_GEMINI_BASE_URL and GOOGLE_API_KEY when the
// test runs (adkproxy-test sets them).
const { GoogleGenAI, Type } = require('@google/genai');

const model = 'gemini-2.5-flash';
const city = { type: Type.OBJECT, properties: { city: { type: Type.STRING } }, required: ['city'] };
const tools = [{
  functionDeclarations: [
    { name: 'get_weather', description: 'Returns the current weather in a city.', parameters: city },
    { name: 'get_local_time', description: 'Returns the local time in a city.', parameters: city },
  ],
}];
const run = {
  get_weather: ({ city: c }) => ({ city: c, temp_c: 21, sky: 'sunny' }),
  get_local_time: ({ city: c }) => ({ city: c, time: '14:05' }),
};

/** Plays the user turns in one conversation and returns the last answer's text. */
async function ask(...turns) {
  const ai = new GoogleGenAI({ apiKey: process.env.GOOGLE_API_KEY });
  const history = [];
  let text = '';
  for (const turn of turns) {
    history.push({ role: 'user', parts: [{ text: turn }] });
    for (;;) {
      const r = await ai.models.generateContent({ model, contents: history, config: { tools } });
      const parts = r.candidates[0].content.parts;
      history.push({ role: 'model', parts });
      const calls = parts.filter((p) => p.functionCall);
      if (!calls.length) {
        text = parts.map((p) => p.text || '').join('');
        break;
      }
      history.push({
        role: 'user',
        parts: calls.map((p) => ({ functionResponse: { name: p.functionCall.name, response: run[p.functionCall.name](p.functionCall.args) } })),
      });
    }
  }
  return text;
}

module.exports = { ask };
