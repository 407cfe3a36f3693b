// A remote agent built on @a2a-js/sdk whose answers change on every run:
// travel_agent books a trip and answers with a booking number drawn at
// random. `--port PORT` (0 picks one; the port is printed), `--public-url
// URL` is the address its agent card names (the name the client reaches
// it by through HTTP_PROXY), `--started FILE` gets a line per start.

import { appendFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import express from 'express';
import { DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';

const arg = (name) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
if (arg('--started')) appendFileSync(arg('--started'), `${process.pid}\n`);

const card = {
  name: 'travel_agent',
  description: 'Books trips.',
  url: arg('--public-url'),
  protocolVersion: '0.3.0',
  version: '1.0.0',
  preferredTransport: 'JSONRPC',
  capabilities: { streaming: false },
  defaultInputModes: ['text'],
  defaultOutputModes: ['text'],
  skills: [{ id: 'book', name: 'book', description: 'Books a trip.', tags: ['travel'] }],
};

const executor = {
  async execute(ctx, bus) {
    const asked = ctx.userMessage.parts.map((p) => p.text ?? '').join(' ');
    bus.publish({
      kind: 'message',
      role: 'agent',
      messageId: randomUUID(),
      contextId: ctx.contextId,
      parts: [{ kind: 'text', text: `Booked trip #${Math.floor(Math.random() * 1e6)} (${asked})` }],
    });
    bus.finished();
  },
  async cancelTask() {},
};

const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
const app = express();
app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
app.use(express.json());
app.use('/', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
const server = app.listen(Number(arg('--port') || 0), '127.0.0.1', () => {
  console.log(`listening ${server.address().port}`);
});
