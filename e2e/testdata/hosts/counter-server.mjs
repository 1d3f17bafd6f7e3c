// counter-server.mjs is an MCP server on the TypeScript SDK, for the host matrix
// (e2e/hosts_test.go): its tools ask the client a question and append one line to the
// file named by the first argument each time they run, so that a test can tell how
// many times the server ran a tool.
//
//   node counter-server.mjs RUNS_FILE
//
// ask: a form with one required field, name; the result is "accept NAME", "decline" or
// "cancel". link: a URL-mode question; the result is "url accept", "url decline" or
// "url cancel". ping_tool: no question, the result is "pong".
import { appendFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const runs = process.argv[2];
if (!runs) {
  console.error('usage: counter-server.mjs RUNS_FILE');
  process.exit(2);
}
// A person may take minutes: the server waits up to 10 minutes for an answer, as
// server-everything does (the SDK's own default is 60 seconds).
const askTimeout = 10 * 60 * 1000;

const server = new Server({ name: 'counter-server', version: '1.0.0' }, { capabilities: { tools: {} } });
const tools = [
  { name: 'ask', description: 'Asks for a name', inputSchema: { type: 'object', properties: { topic: { type: 'string' } } } },
  { name: 'link', description: 'Asks to open a link', inputSchema: { type: 'object', properties: {} } },
  { name: 'ping_tool', description: 'Answers pong', inputSchema: { type: 'object', properties: {} } },
];
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
  const { name, arguments: args } = req.params;
  appendFileSync(runs, JSON.stringify({ tool: name, arguments: args ?? {} }) + '\n');
  const text = (t) => ({ content: [{ type: 'text', text: t }] });
  const opts = { timeout: askTimeout, relatedRequestId: extra.requestId };
  switch (name) {
    case 'ask': {
      const r = await server.elicitInput({
        message: 'Who is asking?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string', title: 'Name' } }, required: ['name'] },
      }, opts);
      return text(r.action === 'accept' ? `accept ${r.content?.name}` : r.action);
    }
    case 'link': {
      const r = await server.elicitInput({
        mode: 'url', url: 'https://example.com/link?from=counter', message: 'Link your account', elicitationId: randomUUID(),
      }, opts);
      return text(`url ${r.action}`);
    }
    case 'ping_tool':
      return text('pong');
    default:
      return { isError: true, ...text(`unknown tool ${name}`) };
  }
});
await server.connect(new StdioServerTransport());
