// The agent's tests, the same file under Vitest (globals) and Jest.
const { useCassette } = require('adkproxy-test');
const { ask } = require('./agent.cjs');

const WEATHER = 'What is the weather in Lisbon?';

test('answers the weather', async () => {
  expect(await ask(WEATHER)).toContain('sunny');
});

describe('two turns', () => {
  test('then the time', async () => {
    expect(await ask(WEATHER, 'What time is it in Lisbon?')).toContain('14:05');
  });
});

test('shares a cassette', async () => {
  await useCassette('shared/lisbon');
  expect(await ask(WEATHER)).toContain('Lisbon');
});
