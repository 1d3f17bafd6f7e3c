// The TypeScript SDK side of bench/compare.sh: does the same work as the
// elicitty command it is compared with, then exits.
//
//   node client.mjs list -- CMD ARGS...     connect over stdio, initialize, tools/list, close
//   node client.mjs list URL                the same over Streamable HTTP
//   node client.mjs elicit N -- CMD ARGS... connect, call elicit_n {n: N}, accept every form
//   node client.mjs elicit N URL            with the schema defaults, print the result text
//
// Every form is accepted with empty content; the SDK's own applyDefaults
// capability fills in the schema defaults (SEP-1034), as elicitty's answers
// file entry `- match: {}\n  action: accept` does.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

function usage() {
  process.stderr.write('usage: client.mjs list|elicit [N] (URL | -- CMD ARGS...)\n');
  process.exit(2);
}

const args = process.argv.slice(2);
const what = args.shift();
let n = 0;
if (what === 'elicit') {
  n = Number.parseInt(args.shift() ?? '', 10);
  if (!Number.isInteger(n) || n < 1) usage();
} else if (what !== 'list') {
  usage();
}

let transport;
if (args[0] === '--' && args.length > 1) {
  transport = new StdioClientTransport({ command: args[1], args: args.slice(2), stderr: 'pipe' });
  // Read and drop the server's stderr, as elicitty reads it into its log.
  transport.stderr?.on('data', () => {});
} else if (args.length === 1) {
  transport = new StreamableHTTPClientTransport(new URL(args[0]));
} else {
  usage();
}

const client = new Client(
  { name: 'elicitty-bench-ts-client', version: '0.0.0' },
  { capabilities: { elicitation: { form: { applyDefaults: true } } } },
);
// With ELICITTY_BENCH_CHECK=1 (the warm-up run only) the negotiated protocol
// version is printed on stderr, read from the initialize result.
if (process.env.ELICITTY_BENCH_CHECK === '1') {
  let onmessage;
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () => onmessage,
    set: (fn) => {
      onmessage = fn && ((msg, extra) => {
        if (typeof msg?.result?.protocolVersion === 'string') {
          process.stderr.write(`protocol ${msg.result.protocolVersion}\n`);
        }
        return fn(msg, extra);
      });
    },
  });
}

let answered = 0;
client.setRequestHandler(ElicitRequestSchema, async () => {
  answered++;
  return { action: 'accept', content: {} };
});

try {
  await client.connect(transport);
  if (what === 'list') {
    const { tools } = await client.listTools();
    process.stdout.write(`${tools.length} tools\n`);
  } else {
    const res = await client.callTool({ name: 'elicit_n', arguments: { n } }, undefined, { timeout: 120_000 });
    const text = res.content?.find((c) => c.type === 'text')?.text ?? '';
    process.stdout.write(`${text}\n`);
    if (res.isError || answered !== n) {
      process.stderr.write(`client.mjs: answered ${answered} forms, result ${JSON.stringify(res)}\n`);
      process.exitCode = 1;
    }
  }
} catch (err) {
  process.stderr.write(`client.mjs: ${err?.stack ?? err}\n`);
  process.exitCode = 1;
} finally {
  await client.close();
}
