// agent-host.mjs is an MCP host on the TypeScript SDK's client with its default
// settings (a 60-second request timeout, no elicitation capability, the SDK's default
// environment for the server: HOME, LOGNAME, PATH, SHELL, TERM and USER only), for the
// host matrix (e2e/hosts_test.go). It behaves as an agent does: it calls one tool and,
// when the call fails (a timeout included), calls it again with the same arguments, up
// to a number of attempts. It reports on stdout, one JSON object a line:
//
//   {"event":"connected"}
//   {"event":"call","attempt":N}
//   {"event":"progress","attempt":N,"message":"..."}   (only with resetTimeoutOnProgress)
//   {"event":"error","attempt":N,"code":C,"message":"..."}
//   {"event":"result","attempt":N,"result":{...}}
//   {"event":"done"}
//
//   node agent-host.mjs SPEC_JSON
//
// SPEC_JSON: {"command":..., "args":[...], "env":{...} or null, "tool":..., "arguments":{...},
// "attempts":N, "timeoutMs":N, "resetTimeoutOnProgress":bool}. With env null the server
// gets the SDK's default environment; with an object, the default plus that object (what
// a host's "env" setting does). timeoutMs (default: the SDK's own, 60 s) is the request
// timeout; resetTimeoutOnProgress asks for progress (the request carries a progressToken)
// and restarts the timeout on each notification, as hosts that offer it do.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';

const spec = JSON.parse(process.argv[2]);
const emit = (o) => process.stdout.write(JSON.stringify(o) + '\n');

const transport = new StdioClientTransport({
  command: spec.command,
  args: spec.args,
  env: spec.env ? { ...getDefaultEnvironment(), ...spec.env } : undefined,
  stderr: 'inherit',
});
const client = new Client({ name: spec.name ?? 'agent-host', version: '1.0.0' }, { capabilities: {} });
await client.connect(transport);
emit({ event: 'connected' });
for (let attempt = 1; attempt <= (spec.attempts ?? 1); attempt++) {
  emit({ event: 'call', attempt });
  try {
    const options = {};
    if (spec.timeoutMs) options.timeout = spec.timeoutMs;
    if (spec.resetTimeoutOnProgress) {
      options.resetTimeoutOnProgress = true;
      options.onprogress = (p) => emit({ event: 'progress', attempt, message: String(p?.message ?? '') });
    }
    const result = await client.callTool({ name: spec.tool, arguments: spec.arguments ?? {} }, undefined, options);
    emit({ event: 'result', attempt, result });
    break;
  } catch (e) {
    emit({ event: 'error', attempt, code: e?.code ?? null, message: String(e?.message ?? e) });
  }
}
await client.close();
emit({ event: 'done' });
