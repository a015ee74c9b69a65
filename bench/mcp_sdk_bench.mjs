// `paddock mcp` under load, through the official MCP SDK client over stdio, each figure against its
// anchor in the same run (issue 29, item 3):
//   1. back to back: CALLS `execute python print(1)` sent one after another without a pause (a
//      client that does not think between calls: the warm pool cannot refill in between; BLOCKS
//      blocks, 1 by default: all 40 in a row), each block followed by as many runs of the anchor, a
//      fresh bubblewrap jail + `python3 -c 'print(1)'` per call (bench/mcp_bench.py's); medians
//      and their ratio (target <= 0.35);
//   2. throughput of trivial calls (shell `true`, python `pass`) with C in flight, against the same
//      interpreter started per call with no sandbox at all, C in flight (target >= 60% of it).
// usage: node bench/mcp_sdk_bench.mjs PADDOCK_BINARY [--calls N] [--blocks B] [--concurrency C] [--seconds S]
//   needs tests/mcp/node_modules (scripts/test-setup.d/mcp.sh) and bwrap.
import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
process.env.PADDOCK_BIN = path.resolve(args[0] ?? 'build/paddock');
const CALLS = opt('--calls', 40);
const BLOCKS = opt('--blocks', 1);
const CONC = opt('--concurrency', 8);
const SECONDS = opt('--seconds', 5);

const { connectStdio, execute, writeConfig } = await import('../tests/mcp/lib/harness.mjs');

const BWRAP = ['--ro-bind', '/usr', '/usr', '--symlink', 'usr/lib', '/lib', '--symlink', 'usr/lib64', '/lib64',
  '--symlink', 'usr/bin', '/bin', '--ro-bind', '/etc', '/etc', '--proc', '/proc', '--dev', '/dev',
  '--tmpfs', '/workspace', '--chdir', '/workspace', '--unshare-all', '--die-with-parent',
  '--setenv', 'HOME', '/workspace', '--setenv', 'TMPDIR', '/workspace'];

const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};
const now = () => Number(process.hrtime.bigint()) / 1e6;

const client = await connectStdio([], writeConfig(`
[defaults]
warm = 4
max_concurrency = ${CONC}
timeout_seconds = 30
`));
const text = (r) => (r.structuredContent ? r.structuredContent.stdout : r.content?.[0]?.text);
const call = async (environment, code) => {
  const r = await execute(client, { environment, code });
  if (r.isError) throw new Error(JSON.stringify(r.content));
  return text(r);
};
await new Promise((r) => setTimeout(r, 2000));  // the warm pools fill

// 1. Back to back, in blocks alternating with the anchor.
const mcp = [], bwrap = [];
const per = Math.max(1, Math.floor(CALLS / BLOCKS));
for (let b = 0; b < BLOCKS; b++) {
  for (let i = 0; i < per; i++) {
    const t = now();
    const out = await call('python', 'print(1)');
    mcp.push(now() - t);
    if (out !== '1\n') throw new Error(`unexpected output ${JSON.stringify(out)}`);
  }
  for (let i = 0; i < per; i++) {
    const t = now();
    const { stdout } = await run('bwrap', [...BWRAP, 'python3', '-c', 'print(1)']);
    bwrap.push(now() - t);
    if (stdout !== '1\n') throw new Error(`bwrap: unexpected output ${JSON.stringify(stdout)}`);
  }
  await new Promise((r) => setTimeout(r, 1000));  // the next block starts from a full pool again
}
const m = median(mcp), w = median(bwrap);
console.log(`back to back, execute python print(1), ${mcp.length} calls in ${BLOCKS} blocks without a pause:`);
console.log(`  paddock mcp (SDK client, stdio): median ${m.toFixed(1)} ms, p90 ${[...mcp].sort((a, b) => a - b)[Math.floor(0.9 * mcp.length)].toFixed(1)} ms`);
console.log(`  bwrap + python3 -c per call:    median ${w.toFixed(1)} ms`);
console.log(`  ratio paddock/bwrap: ${(m / w).toFixed(2)} (target <= 0.35)`);

// 2. Throughput with CONC in flight for SECONDS, against the bare interpreter.
async function rate(one) {
  let done = 0, stop = false;
  const t0 = now();
  setTimeout(() => { stop = true; }, SECONDS * 1000);
  await Promise.all(Array.from({ length: CONC }, async () => {
    while (!stop) {
      await one();
      done++;
    }
  }));
  return done / ((now() - t0) / 1000);
}
for (const [env, code, anchor] of [['shell', 'true', ['/usr/bin/bash', ['-c', 'true']]],
  ['python', 'pass', ['/usr/bin/python3', ['-c', 'pass']]]]) {
  await new Promise((r) => setTimeout(r, 2000));
  const p = await rate(() => call(env, code));
  const a = await rate(() => run(anchor[0], anchor[1]));
  console.log(`throughput, execute ${env} ${JSON.stringify(code)}, ${CONC} in flight: ${p.toFixed(1)} calls/s; ` +
    `${anchor[0]} ${anchor[1].join(' ')} per call, no sandbox: ${a.toFixed(1)}/s; ratio ${(p / a).toFixed(2)} (target >= 0.60)`);
}
console.log(`machine: ${os.cpus().length} cpus, load average ${os.loadavg()[0].toFixed(1)}`);
await client.close();
