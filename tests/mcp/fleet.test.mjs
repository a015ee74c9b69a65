// A fleet: three `paddock mcp --http` workers behind a real HAProxy on loopback, driven by the
// official SDK client. Sessions stick to the worker that minted them; a worker killed mid-call
// loses only its in-flight calls, whose clients get a clear error and succeed after
// re-initializing; a drained worker (SIGTERM) loses nothing; /metrics passes promtool.
// Run by tests/fleet/run.sh (skips without haproxy or promtool).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { connectHttp, execute, tempDir, text } from './lib/harness.mjs';
import { metrics, metricSum, startHaproxy, startWorker, writeTokens } from './lib/fleet.mjs';

let tokens, workers, lb;
before(async () => {
  const dir = tempDir('paddock-fleet-');
  tokens = writeTokens(dir, { agents: '', prom: 'scope=metrics', greedy: 'max_concurrency=1' });
  workers = await Promise.all([0, 1, 2].map(() => startWorker(tokens.file)));
  lb = await startHaproxy(workers);
});
after(() => {
  lb?.child.kill('SIGTERM');
  for (const w of workers ?? []) w.child.kill('SIGKILL');
});

const calls = async (w) => metricSum(await metrics(w, tokens.secrets.prom), 'paddock_mcp_calls_total');
async function perWorker(live = workers) {
  return Promise.all(live.map((w) => calls(w)));
}
// The SDK's error for an HTTP status (StreamableHTTPError: .code is the status).
const httpError = (status, text) => (e) => {
  assert.equal(e.code, status, `HTTP ${status} expected: ${e}`);
  assert.match(e.message, text);
  return true;
};
async function connect(token = tokens.secrets.agents) {
  return connectHttp(lb.url, token);
}
// Which worker serves a session: the one whose call count moves when it runs a call.
async function whereIs(client, live) {
  const before = await perWorker(live);
  const r = await execute(client, { environment: 'shell', code: 'echo here' });
  assert.equal(text(r), 'here\n');
  const after = await perWorker(live);
  const moved = live.filter((w, i) => after[i] > before[i]);
  assert.equal(moved.length, 1, 'exactly one worker served the call');
  return moved[0];
}

test('sessions stick to the worker that minted them, and spread over the workers', async () => {
  const clients = [];
  try {
    const homes = new Set();
    for (let i = 0; i < 6; ++i) {
      const c = await connect();
      clients.push(c);
      const home = await whereIs(c.client, workers);
      homes.add(home);
      const before = await perWorker();
      for (let k = 0; k < 4; ++k) {
        const r = await execute(c.client, { environment: 'python', code: `print(${k} * 7)` });
        assert.equal(text(r), `${k * 7}\n`);
      }
      const after = await perWorker();
      workers.forEach((w, j) => assert.equal(after[j] - before[j], w === home ? 4 : 0, `client ${i}: all four calls on one worker`));
    }
    assert.equal(homes.size, 3, 'six sessions were spread over all three workers');
  } finally {
    for (const c of clients) await c.transport.terminateSession().catch(() => {});
  }
});

test('/metrics passes promtool and needs the metrics token', async () => {
  for (const w of workers) {
    const body = await metrics(w, tokens.secrets.prom);
    assert.match(body, /^paddock_mcp_calls_in_flight \d+$/m);
    const out = execFileSync('promtool', ['check', 'metrics'], { input: body, encoding: 'utf8' });
    assert.equal(out.trim(), '', `promtool found nothing to say: ${out}`);
    const denied = await fetch(`http://127.0.0.1:${w.port}/metrics`, { headers: { Authorization: `Bearer ${tokens.secrets.agents}` } });
    assert.equal(denied.status, 403);
    assert.equal((await fetch(`http://127.0.0.1:${w.port}/metrics`)).status, 401);
  }
});

test('per-token concurrency through the balancer: the greedy token is refused, the others are not', async () => {
  const g = await connect(tokens.secrets.greedy);
  const o = await connect();
  try {
    const slow = execute(g.client, { environment: 'shell', code: 'sleep 1.5; echo slow' });
    await new Promise((r) => setTimeout(r, 400));
    await assert.rejects(execute(g.client, { environment: 'shell', code: 'echo again' }),
      httpError(429, /Too Many Requests: token \\"greedy\\" has 1 calls in flight/));
    assert.equal(text(await execute(o.client, { environment: 'shell', code: 'echo other' })), 'other\n');
    assert.equal(text(await slow), 'slow\n');
  } finally {
    await g.transport.terminateSession().catch(() => {});
    await o.transport.terminateSession().catch(() => {});
  }
});

test('a worker killed mid-call: its clients get a clear error and succeed after re-initializing', async () => {
  const victim = workers[1];
  const clients = [];
  for (let i = 0; i < 6; ++i) clients.push(await connect());
  const homes = [];
  for (const c of clients) homes.push(await whereIs(c.client, workers));
  const onVictim = clients.filter((_, i) => homes[i] === victim);
  const elsewhere = clients.filter((_, i) => homes[i] !== victim);
  assert.ok(onVictim.length >= 1 && elsewhere.length >= 1);
  const inflight = onVictim.map((c) => execute(c.client, { environment: 'shell', code: 'sleep 5; echo never' }).then(
    (r) => ({ ok: true, r }), (e) => ({ ok: false, e })));
  const others = elsewhere.map((c) => execute(c.client, { environment: 'shell', code: 'sleep 1; echo fine' }));
  await new Promise((r) => setTimeout(r, 500));
  victim.child.kill('SIGKILL');
  workers = workers.filter((w) => w !== victim);
  for (const res of await Promise.all(inflight)) {
    assert.equal(res.ok, false, 'the in-flight call on the killed worker failed');
    // HAProxy answers 502, or, for a request that was not the first on its client connection,
    // closes that connection without an answer (its keep-alive semantics: "not answered").
    const said = `${res.e} ${res.e?.cause ?? ''}`;
    assert.ok(res.e?.code === 502 || res.e?.cause?.code === 'UND_ERR_SOCKET', `a clear error: ${said}`);
  }
  for (const r of await Promise.all(others)) assert.equal(text(r), 'fine\n', 'other workers\' calls were untouched');
  // The old session is gone with its worker: the protocol's 404, then a fresh session works.
  for (const c of onVictim) {
    await assert.rejects(execute(c.client, { environment: 'shell', code: 'echo x' }), httpError(404, /session/));
    const fresh = await connect();
    assert.equal(text(await execute(fresh.client, { environment: 'python', code: 'print("again")' })), 'again\n');
    await fresh.transport.terminateSession().catch(() => {});
  }
  for (const c of clients) await c.transport.terminateSession().catch(() => {});
});

test('a drained worker loses nothing: calls in flight finish, then its clients move on', async () => {
  const live = workers;
  const victim = live[0];
  const clients = [];
  for (let i = 0; i < 4; ++i) clients.push(await connect());
  const homes = [];
  for (const c of clients) homes.push(await whereIs(c.client, live));
  const onVictim = clients.filter((_, i) => homes[i] === victim);
  assert.ok(onVictim.length >= 1);
  const inflight = onVictim.map((c, i) => execute(c.client, { environment: 'shell', code: `sleep 1.5; echo done${i}` }));
  await new Promise((r) => setTimeout(r, 300));
  victim.child.kill('SIGTERM');
  // While it drains, new sessions still work (HAProxy retries a 503 elsewhere, and its check
  // takes the worker out).
  const during = await connect();
  assert.equal(text(await execute(during.client, { environment: 'shell', code: 'echo meanwhile' })), 'meanwhile\n');
  const results = await Promise.all(inflight);
  results.forEach((r, i) => assert.equal(text(r), `done${i}\n`, 'every call in flight finished and was answered'));
  const { code } = await victim.exited;
  assert.equal(code, 0, 'the drained worker exited cleanly');
  for (const c of onVictim) {
    await assert.rejects(execute(c.client, { environment: 'shell', code: 'echo x' }), httpError(404, /session/),
      'its sessions answer "session not found"');
    const fresh = await connect();
    assert.equal(text(await execute(fresh.client, { environment: 'shell', code: 'echo moved' })), 'moved\n');
    await fresh.transport.terminateSession().catch(() => {});
  }
  await during.transport.terminateSession().catch(() => {});
  for (const c of clients) await c.transport.terminateSession().catch(() => {});
});
