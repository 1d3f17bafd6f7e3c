// The host side of bench/proxy.sh: a client on the official TypeScript SDK that calls
// one tool N times, one call after the other, as an agent host does, and prints the
// latency of each call's round trip.
//
//   node calls.mjs N -- CMD ARGS...   over stdio (CMD is the server, or a relay to it)
//   node calls.mjs N URL              over Streamable HTTP
//
// It calls tool-0 of bench/fakeserver (answered at once), after one warm-up call, and
// prints one line: "p50_us p90_us p99_us total_ms" of the N timed calls.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const args = process.argv.slice(2);
const n = Number.parseInt(args.shift() ?? '', 10);
if (!Number.isInteger(n) || n < 1) {
  process.stderr.write('usage: calls.mjs N (URL | -- CMD ARGS...)\n');
  process.exit(2);
}
let transport;
if (args[0] === '--' && args.length > 1) {
  transport = new StdioClientTransport({ command: args[1], args: args.slice(2), stderr: 'pipe' });
  transport.stderr?.on('data', () => {});
} else if (args.length === 1) {
  transport = new StreamableHTTPClientTransport(new URL(args[0]));
} else {
  process.stderr.write('usage: calls.mjs N (URL | -- CMD ARGS...)\n');
  process.exit(2);
}

const client = new Client({ name: 'elicitty-bench-calls', version: '0.0.0' }, { capabilities: {} });
const call = async () => {
  const res = await client.callTool({ name: 'tool-0', arguments: { text: 'hello', n: 1 } });
  if (res.isError || res.content?.[0]?.text !== 'ok') throw new Error(`unexpected result ${JSON.stringify(res)}`);
};
try {
  await client.connect(transport);
  await call();
  const us = new Float64Array(n);
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await call();
    us[i] = (performance.now() - t) * 1000;
  }
  const total = performance.now() - start;
  us.sort();
  const at = (q) => us[Math.min(n - 1, Math.ceil(q * n) - 1)];
  process.stdout.write(`${Math.round(at(0.5))} ${Math.round(at(0.9))} ${Math.round(at(0.99))} ${total.toFixed(1)}\n`);
} catch (err) {
  process.stderr.write(`calls.mjs: ${err?.stack ?? err}\n`);
  process.exitCode = 1;
} finally {
  await client.close();
}
