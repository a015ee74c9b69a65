// A fleet on loopback for the tests and the benchmark: N `paddock mcp --http` workers sharing a
// token file, behind a real HAProxy (Debian's) with session affinity on Mcp-Session-Id and health
// checks on /readyz (docs/scale.md has the same configuration for production).
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { PADDOCK, tempDir, writeConfig } from './harness.mjs';

export async function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// tokens: {name: 'NAME TOKEN [options]' line without the token}; returns {file, secrets}.
export function writeTokens(dir, specs) {
  const secrets = {};
  const lines = Object.entries(specs).map(([name, opts]) => {
    secrets[name] = `${name}-${Math.random().toString(16).slice(2)}${Math.random().toString(16).slice(2)}`;
    return `${name} ${secrets[name]} ${opts}`.trim();
  });
  const file = path.join(dir, 'tokens');
  fs.writeFileSync(file, lines.join('\n') + '\n', { mode: 0o600 });
  return { file, secrets };
}

export async function startWorker(tokenFile, { config = writeConfig(), extra = [] } = {}) {
  const child = spawn(PADDOCK, ['mcp', '--config', config, '--http', '127.0.0.1:0', '--token-file', tokenFile,
    '--drain-seconds', '20', ...extra], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  const url = await new Promise((resolve, reject) => {
    child.stderr.on('data', (d) => {
      log += d;
      const m = log.match(/serving MCP \(Streamable HTTP\) at (http:\/\/\S+)/);
      if (m) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`worker exited with ${code}: ${log}`)));
  });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const port = Number(new URL(url).port);
  return { child, url, port, exited, log: () => log };
}

export async function waitReady(port, want = true, limitMs = 20000) {
  const until = Date.now() + limitMs;
  while (Date.now() < until) {
    try {
      const r = await fetch(`http://127.0.0.1:${port}/readyz`);
      if ((r.status === 200) === want) return;
    } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`port ${port}: /readyz did not become ${want ? 'ready' : 'unready'}`);
}

export function haproxyConfig(port, workers, dir) {
  return `global
  maxconn 2000
  stats socket ${dir}/haproxy.sock mode 600 level admin
defaults
  mode http
  timeout connect 2s
  timeout client 120s
  timeout server 120s
  # Retried elsewhere only when nothing ran: a refused connection, or a draining worker's 503.
  retries 3
  option redispatch 1
  retry-on conn-failure 503
frontend mcp
  bind 127.0.0.1:${port}
  default_backend workers
backend workers
  balance roundrobin
  # Session affinity: the worker that minted an Mcp-Session-Id gets every request carrying it.
  stick-table type string len 64 size 100k expire 2h
  stick store-response res.hdr(mcp-session-id)
  stick match req.hdr(mcp-session-id)
  option httpchk GET /readyz
  http-check expect status 200
  default-server inter 300ms fastinter 200ms downinter 300ms fall 1 rise 2
${workers.map((w, i) => `  server w${i} 127.0.0.1:${w.port} check`).join('\n')}
`;
}

export async function startHaproxy(workers) {
  const dir = tempDir('paddock-haproxy-');
  const port = await freePort();
  const cfg = path.join(dir, 'haproxy.cfg');
  fs.writeFileSync(cfg, haproxyConfig(port, workers, dir));
  execFileSync('haproxy', ['-c', '-q', '-f', cfg]);
  const child = spawn('haproxy', ['-db', '-f', cfg], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr.on('data', (d) => { log += d; });
  for (const w of workers) await waitReady(w.port);
  // Up once HAProxy answers and its checks have seen every worker (rise 2 x inter).
  const until = Date.now() + 15000;
  for (;;) {
    try {
      await fetch(`http://127.0.0.1:${port}/healthz`);
      break;
    } catch (e) {
      if (Date.now() > until) throw new Error(`haproxy did not start: ${log}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  await new Promise((r) => setTimeout(r, 800));
  return { child, port, url: `http://127.0.0.1:${port}/mcp`, dir, log: () => log };
}

// A worker's counters from /metrics, read with a token that has the metrics scope.
export async function metrics(worker, token) {
  const r = await fetch(`http://127.0.0.1:${worker.port}/metrics`, { headers: { Authorization: `Bearer ${token}` } });
  if (r.status !== 200) throw new Error(`/metrics: ${r.status}`);
  return r.text();
}

export function metricSum(text, name) {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(name + '{') || line.startsWith(name + ' ')) sum += Number(line.split(' ').pop());
  }
  return sum;
}
