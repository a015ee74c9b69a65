// The fleet benchmark (docs/benchmarks.md#fleet): paddock mcp workers behind HAProxy on loopback,
// driven by the official MCP SDK client over Streamable HTTP, each figure against its anchor in
// the same run:
//   1. latency of one call (shell `echo 1`, one in flight) through the balancer against the same
//      call sent to one worker directly, interleaved: p50 and p99 and their ratios;
//   2. throughput with C calls in flight against the number of workers (1, 2, 3) behind the
//      balancer, shell `echo 1` and python `print(1)`, as a ratio to one worker (this machine has
//      2 cores: the curve flattens where the cores run out); the load average is printed before
//      and after, since the machine is shared;
//   3. a fresh sandbox per call (p50/p99 of 1.) against the field's claim latency: Kubernetes
//      agent-sandbox's claim-ready thresholds (p50 1 s, p99 5 s) and remote providers' median
//      time to first command (ComputeSDK 2026-05: e2b 491 ms, daytona 186 ms).
// usage: node bench/fleet_bench.mjs PADDOCK_BINARY [--calls N] [--seconds S] [--concurrency C]
//   needs haproxy and tests/mcp/node_modules (scripts/test-setup.d/mcp.sh, fleet.sh).
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
process.env.PADDOCK_BIN = path.resolve(args[0] ?? 'build/paddock');
const CALLS = opt('--calls', 200);
const SECONDS = opt('--seconds', 10);
const CONC = opt('--concurrency', 8);

const { connectHttp, execute, tempDir, text, writeConfig } = await import('../tests/mcp/lib/harness.mjs');
const { startHaproxy, startWorker, writeTokens } = await import('../tests/mcp/lib/fleet.mjs');

const CONFIG = `
[defaults]
timeout_seconds = 30
memory_mb = 256
warm = 2
max_concurrency = 4

[environments.node]
enabled = false
`;

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const f1 = (x) => x.toFixed(1);
const f2 = (x) => x.toFixed(2);

async function fleet(n, tokens, config) {
  const workers = [];
  for (let i = 0; i < n; ++i) workers.push(await startWorker(tokens.file, { config }));
  const lb = await startHaproxy(workers);
  return {
    workers, lb,
    stop: () => { lb.child.kill('SIGTERM'); for (const w of workers) w.child.kill('SIGKILL'); },
  };
}

const CODE = { shell: 'echo 1', python: 'print(1)' };
async function timed(client, environment = 'shell') {
  const t0 = performance.now();
  const r = await execute(client, { environment, code: CODE[environment] });
  const ms = performance.now() - t0;
  if (text(r) !== '1\n') throw new Error(`unexpected result: ${JSON.stringify(r)}`);
  return ms;
}
const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');

const dir = tempDir('paddock-fleet-bench-');
const tokens = writeTokens(dir, { bench: '' });
const config = writeConfig(CONFIG);
const tok = tokens.secrets.bench;
console.log(`fleet benchmark: ${process.env.PADDOCK_BIN}, ${execFileSync('nproc').toString().trim()} cores, ` +
  `haproxy ${execFileSync('haproxy', ['-v']).toString().split('\n')[0].split(' ')[2]}, load average ${load()}`);

// 1. Latency: through the balancer vs one worker directly, interleaved.
{
  const f = await fleet(3, tokens, config);
  const viaLb = await connectHttp(f.lb.url, tok);
  const direct = await connectHttp(f.workers[0].url, tok);
  for (let i = 0; i < 10; ++i) { await timed(viaLb.client); await timed(direct.client); }  // warm-up
  const lbMs = [], directMs = [];
  for (let i = 0; i < CALLS; ++i) {
    lbMs.push(await timed(viaLb.client));
    directMs.push(await timed(direct.client));
  }
  const [l50, l99, d50, d99] = [pct(lbMs, 50), pct(lbMs, 99), pct(directMs, 50), pct(directMs, 99)];
  console.log(`\n1. one call (shell "echo 1", 1 in flight, ${CALLS} each, interleaved), ms:`);
  console.log(`   through HAProxy to 3 workers   p50 ${f2(l50)}   p99 ${f2(l99)}`);
  console.log(`   one worker directly            p50 ${f2(d50)}   p99 ${f2(d99)}`);
  console.log(`   ratio (balancer / direct)      p50 ${f2(l50 / d50)}x   p99 ${f2(l99 / d99)}x   (+${f2(l50 - d50)} ms at p50)`);
  console.log(`\n3. a fresh sandbox per call against the field's claim latency:`);
  console.log(`   agent-sandbox claim ready, thresholds p50 1000 ms / p99 5000 ms: ` +
    `${f1(1000 / l50)}x / ${f1(5000 / l99)}x faster through the balancer`);
  console.log(`   remote providers' median time to first command (ComputeSDK 2026-05): ` +
    `e2b 491 ms = ${f1(491 / l50)}x, daytona 186 ms = ${f1(186 / l50)}x, declaw 42 ms = ${f1(42 / l50)}x our p50`);
  await viaLb.transport.terminateSession();
  await direct.transport.terminateSession();
  f.stop();
}

// 2. Throughput against the number of workers, C calls in flight through the balancer.
console.log(`\n2. throughput through HAProxy, ${CONC} calls in flight, ${SECONDS} s each (load average before: ${load()}):`);
for (const environment of ['shell', 'python']) {
  let base = 0;
  for (const n of [1, 2, 3]) {
    const f = await fleet(n, tokens, config);
    const clients = [];
    for (let i = 0; i < CONC; ++i) clients.push(await connectHttp(f.lb.url, tok));
    for (const c of clients) await timed(c.client, environment);  // warm-up
    let done = 0;
    const lat = [];
    const until = performance.now() + SECONDS * 1000;
    const t0 = performance.now();
    await Promise.all(clients.map(async (c) => {
      while (performance.now() < until) { lat.push(await timed(c.client, environment)); ++done; }
    }));
    const rate = done / ((performance.now() - t0) / 1000);
    if (n === 1) base = rate;
    console.log(`   ${environment.padEnd(6)} ${n} worker${n > 1 ? 's' : ' '}  ${f1(rate)} calls/s  (${f2(rate / base)}x one worker)  ` +
      `p50 ${f1(pct(lat, 50))} ms  p99 ${f1(pct(lat, 99))} ms`);
    for (const c of clients) await c.transport.terminateSession().catch(() => {});
    f.stop();
    await new Promise((r) => setTimeout(r, 1000));
  }
}
console.log(`   load average after: ${load()}`);
process.exit(0);
