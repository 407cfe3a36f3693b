// An MCP server built on @modelcontextprotocol/sdk whose answers change on
// every run: get_weather reports a temperature drawn at random and the
// server's own start time, so a replay that reached it would give the
// agent other text than the recording did. `--http PORT` serves Streamable
// HTTP on PORT (at any path) instead of stdio; `--started FILE` names a file
// each start of the server appends a line to, so a test can tell that
// replay started none (an argument, because an MCP client passes a stdio
// server only a minimal environment).

import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

const arg = (name) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
if (arg('--started')) appendFileSync(arg('--started'), `${process.pid}\n`);
const started = new Date().toISOString();

function newServer() {
  const server = new McpServer({ name: 'weather', version: '1.0.0' });
  server.registerTool(
    'get_weather',
    {
      description: 'Returns the current weather in a city.',
      inputSchema: { city: z.string().describe('The city name.') },
    },
    async ({ city }) => ({
      content: [{ type: 'text', text: JSON.stringify({ city, temp_c: Math.floor(Math.random() * 1000), started }) }],
    }),
  );
  return server;
}

if (arg('--http')) {
  const sessions = new Map();
  const http = createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : undefined;
    const sid = req.headers['mcp-session-id'];
    let transport = sid && sessions.get(sid);
    if (!transport) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (id) => sessions.set(id, transport),
      });
      await newServer().connect(transport);
    }
    await transport.handleRequest(req, res, body);
  });
  http.listen(Number(arg('--http')), '127.0.0.1', () => {
    console.log(`listening ${http.address().port}`);
  });
} else {
  await newServer().connect(new StdioServerTransport());
}
