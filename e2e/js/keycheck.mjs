// Builds the JS client as an app that relies on the environment for its
// key would, and prints the key it read (see e2e/placeholderkey_test.go).
import { GoogleGenAI } from '@google/genai';

const ai = new GoogleGenAI({});
console.log(JSON.stringify({ apiKey: ai.apiKey ?? null }));
