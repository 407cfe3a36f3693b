// useCassette: one adkproxy cassette per node:test (or Jest, Vitest) test,
// through the control API at ADKPROXY_URL, which adkproxy sets for the
// command it wraps. Without ADKPROXY_URL it does nothing.

/**
 * Sends the requests that name no cassette to `name` from now on.
 * @param {string} name e.g. "weather/answers about Paris"
 * @returns {Promise<string|undefined>} the previous cassette
 */
export async function useCassette(name) {
  const base = process.env.ADKPROXY_URL;
  if (!base) return undefined;
  const headers = { 'Content-Type': 'application/json' };
  if (process.env.ADKPROXY_CONTROL_TOKEN) {
    headers.Authorization = `Bearer ${process.env.ADKPROXY_CONTROL_TOKEN}`;
  }
  const resp = await fetch(`${base.replace(/\/$/, '')}/_adkproxy/cassette`, {
    method: 'PUT',
    headers,
    body: JSON.stringify({ name }),
  });
  const body = await resp.json();
  if (!resp.ok) {
    throw new Error(`adkproxy refused cassette ${JSON.stringify(name)}: ${body.error?.message}`);
  }
  return body.previous;
}
