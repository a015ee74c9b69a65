// The official SDK client over Streamable HTTP, and the official conformance suite.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { connectHttp, execute, startHttp, text } from './lib/harness.mjs';

let server;
let open; // a second server with --danger-http-no-auth (loopback) for the conformance suite
before(async () => {
  server = await startHttp();
  assert.match(server.token ?? '', /^[0-9a-f]{64}$/, 'a generated token was printed');
  open = await startHttp(['--danger-http-no-auth']);
});
after(() => {
  server?.child.kill('SIGTERM');
  open?.child.kill('SIGTERM');
});

test('SDK client over Streamable HTTP: list, execute, progress, session', async () => {
  const { client, transport } = await connectHttp(server.url, server.token);
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
  const { client, transport } = await connectHttp(server.url, server.token);
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
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${server.token}` };
  const evil = await fetch(server.url, { method: 'POST', body: init, headers: { ...headers, origin: 'https://evil.example' } });
  assert.equal(evil.status, 403);
  // A rebound name: the browser sends the attacker's Host with no foreign Origin (same-origin).
  const badHost = await rawPost(server.url, init, { ...headers, host: 'evil.example:80' });
  assert.equal(badHost.status, 403);
  const ok = await fetch(server.url, { method: 'POST', body: init, headers });
  assert.equal(ok.status, 200);
  assert.ok(ok.headers.get('mcp-session-id'));
});

// fetch() does not let a caller set Host; send it over a raw socket.
async function rawPost(url, body, headers) {
  const net = await import('node:net');
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const sock = net.connect(Number(u.port), u.hostname);
    let data = '';
    sock.on('data', (d) => { data += d; });
    sock.on('error', reject);
    sock.on('end', () => resolve({ status: Number(data.slice(9, 12)), raw: data }));
    const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}`);
    sock.write(`POST ${u.pathname} HTTP/1.1\r\n${lines.join('\r\n')}\r\nconnection: close\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  });
}

test('HTTP auth: a missing or wrong bearer token gets 401 and nothing runs', async () => {
  const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  // A session opened with the right token, then calls without or with a wrong one.
  const { client, transport } = await connectHttp(server.url, server.token);
  try {
    const call = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'execute', arguments: { environment: 'shell', code: 'echo ran' } } });
    for (const auth of [undefined, 'Bearer wrong', `Bearer ${server.token}0`, `Basic ${server.token}`]) {
      const h = { ...base, 'mcp-session-id': transport.sessionId, 'mcp-protocol-version': '2025-11-25' };
      if (auth) h.authorization = auth;
      const r = await fetch(server.url, { method: 'POST', body: call, headers: h });
      assert.equal(r.status, 401, String(auth));
      assert.match(r.headers.get('www-authenticate') ?? '', /^Bearer/);
      assert.doesNotMatch(await r.text(), /ran/);
    }
    // The SDK without the token cannot connect at all.
    await assert.rejects(connectHttp(server.url));
  } finally {
    await transport.terminateSession();
    await client.close();
  }
});

// The conformance scenarios that apply to a tools-only server. Scenarios for features paddock
// does not offer (resources, prompts, logging, sampling, elicitation, completion, the image and
// audio tools of the suite's reference server) are not run.
const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'server-sse-multiple-streams', 'dns-rebinding-protection'];
for (const scenario of SCENARIOS) {
  test(`conformance: ${scenario}`, () => {
    const out = execFileSync(
      process.execPath,
      ['node_modules/@modelcontextprotocol/conformance/dist/index.js', 'server', '--url', open.url, '--scenario', scenario],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120000 },
    );
    assert.doesNotMatch(out, /FAIL/, out);
  });
}
