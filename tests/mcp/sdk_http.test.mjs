// The official SDK client over Streamable HTTP, and the official conformance suite.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { connectHttp, execute, startHttp, text } from './lib/harness.mjs';

let server;
before(async () => {
  server = await startHttp();
});
after(() => {
  server?.child.kill('SIGTERM');
});

test('SDK client over Streamable HTTP: list, execute, progress, session', async () => {
  const { client, transport } = await connectHttp(server.url);
  try {
    assert.ok(transport.sessionId, 'the server minted a session id');
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === 'execute'));
    const r = await execute(client, { environment: 'python', code: 'print(6*7)' });
    assert.equal(text(r), '42\n');
    const seen = [];
    const slow = await execute(client, { environment: 'shell', code: 'sleep 2.2; echo ok' }, { onprogress: (p) => seen.push(p) });
    assert.equal(text(slow), 'ok\n');
    assert.ok(seen.length >= 1);
    const a = await execute(client, { environment: 'python', code: 'v = 5', session: 'new' });
    const b = await execute(client, { environment: 'python', code: 'print(v * 2)', session: a.structuredContent.session });
    assert.equal(text(b), '10\n');
  } finally {
    await transport.terminateSession();
    await client.close();
  }
});

test('cancellation over HTTP', async () => {
  const { client, transport } = await connectHttp(server.url);
  try {
    const ac = new AbortController();
    const call = execute(client, { environment: 'shell', code: 'sleep 30' }, { signal: ac.signal });
    setTimeout(() => ac.abort('test'), 500);
    await assert.rejects(call);
    assert.deepEqual(await client.ping(), {});
  } finally {
    await transport.terminateSession();
    await client.close();
  }
});

test('DNS rebinding: foreign Origin and Host are refused', async () => {
  const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const evil = await fetch(server.url, { method: 'POST', body: init, headers: { ...headers, origin: 'https://evil.example' } });
  assert.equal(evil.status, 403);
  const ok = await fetch(server.url, { method: 'POST', body: init, headers });
  assert.equal(ok.status, 200);
  assert.ok(ok.headers.get('mcp-session-id'));
});

// The conformance scenarios that apply to a tools-only server. Scenarios for features paddock
// does not offer (resources, prompts, logging, sampling, elicitation, completion, the image and
// audio tools of the suite's reference server) are not run.
const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'server-sse-multiple-streams', 'dns-rebinding-protection'];
for (const scenario of SCENARIOS) {
  test(`conformance: ${scenario}`, () => {
    const out = execFileSync(
      process.execPath,
      ['node_modules/@modelcontextprotocol/conformance/dist/index.js', 'server', '--url', server.url, '--scenario', scenario],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120000 },
    );
    assert.doesNotMatch(out, /FAIL/, out);
  });
}
