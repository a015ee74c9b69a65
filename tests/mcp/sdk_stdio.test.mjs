// The official MCP TypeScript SDK client drives `paddock mcp` over stdio.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { connectStdio, execute, text, tempDir, writeConfig, TEST_CONFIG } from './lib/harness.mjs';

let client;
before(async () => {
  client = await connectStdio();
});
after(async () => {
  await client?.close();
});

test('server info, version negotiation and instructions', () => {
  const info = client.getServerVersion();
  assert.equal(info.name, 'paddock');
  const caps = client.getServerCapabilities();
  assert.deepEqual(caps.tools, { listChanged: false });
  assert.match(client.getInstructions(), /execute/);
});

test('lists tools with input and output schemas', async () => {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  assert.deepEqual(names, ['close_session', 'execute', 'list_environments']);
  const exec = tools.find((t) => t.name === 'execute');
  assert.deepEqual(exec.inputSchema.required, ['environment', 'code']);
  assert.ok(exec.inputSchema.properties.environment.enum.includes('python'));
  assert.equal(exec.outputSchema.type, 'object');
  assert.match(exec.description, /no network/);
});

test('list_environments', async () => {
  const r = await client.callTool({ name: 'list_environments', arguments: {} });
  assert.equal(r.isError, false);
  const names = r.structuredContent.environments.map((e) => e.name);
  for (const n of ['shell', 'python', 'node']) assert.ok(names.includes(n), n);
  const py = r.structuredContent.environments.find((e) => e.name === 'python');
  assert.equal(py.memory_mb, 128);
  assert.equal(py.timeout_seconds, 10);
  assert.deepEqual(py.files_mb, { workspace: 64, tmp: 32, dev_shm: 32 });
});

test('the files a call writes are capped within its memory: /workspace, /tmp, /dev/shm', async () => {
  // Each place is filled 1 MiB at a time until the file system refuses, then emptied again, so
  // that the program itself never holds more than one of them.
  const code = [
    'import os',
    'for d in ("/workspace", "/tmp", "/dev/shm"):',
    '    n = 0',
    '    p = os.path.join(d, "fill")',
    '    try:',
    '        with open(p, "wb") as f:',
    '            for _ in range(1024):',
    '                f.write(b"x" * (1 << 20)); f.flush(); os.fsync(f.fileno()); n += 1',
    '    except OSError:',
    '        pass',
    '    os.unlink(p)',
    '    print(d, n)',
  ].join('\n');
  const r = await execute(client, { environment: 'python', code });
  assert.equal(r.isError, false, text(r));
  const got = Object.fromEntries(r.structuredContent.stdout.trim().split('\n').map((l) => l.split(' ')));
  // tmpfs sizes round to pages; the last MiB may not fit.
  for (const [d, cap] of [['/workspace', 64], ['/tmp', 32], ['/dev/shm', 32]])
    assert.ok(Number(got[d]) >= cap - 2 && Number(got[d]) <= cap, `${d}: ${got[d]} MiB written, cap ${cap}`);
});

for (const [env, code, expected] of [
  ['python', 'print(1+1)', '2\n'],
  ['shell', 'echo $((40+2))', '42\n'],
  ['node', 'console.log([1,2,3].map(x => x * 2).join(","))', '2,4,6\n'],
]) {
  test(`executes ${env}`, async () => {
    const r = await execute(client, { environment: env, code });
    assert.equal(r.isError, false, text(r));
    assert.equal(text(r), expected);
    assert.equal(r.structuredContent.stdout, expected);
    assert.equal(r.structuredContent.exit_code, 0);
  });
}

test('programs past the 128 KiB cap of one argument run in every environment', async () => {
  // A 300 KiB literal: as `bash -c CODE` this failed with "Argument list too long".
  const big = 'a'.repeat(300 * 1024);
  const programs = {
    shell: `x='${big}'; echo \${#x}`,
    python: `x='${big}'\nprint(len(x))`,
    node: `const x='${big}'; console.log(x.length)`,
  };
  for (const [env, code] of Object.entries(programs)) {
    const r = await execute(client, { environment: env, code });
    assert.equal(r.isError, false, `${env}: ${text(r).slice(0, 400)}`);
    assert.equal(r.structuredContent.stdout, `${300 * 1024}\n`, env);
  }
});

test('stderr comes after a marker; non-zero exit is a tool error', async () => {
  const r = await execute(client, { environment: 'shell', code: 'echo out; echo err >&2; exit 3' });
  assert.equal(r.isError, true);
  assert.equal(r.structuredContent.exit_code, 3);
  assert.equal(text(r), 'out\n--- stderr ---\nerr\n[exit code 3]');
});

test('python exceptions are reported without the launcher frame', async () => {
  const r = await execute(client, { environment: 'python', code: 'def f():\n  raise ValueError("boom")\nf()' });
  assert.equal(r.isError, true);
  assert.match(r.structuredContent.stderr, /ValueError: boom/);
  assert.match(r.structuredContent.stderr, /File "<code>", line 3/);
});

test('bad arguments are tool errors the model can read', async () => {
  const r = await execute(client, { environment: 'cobol', code: 'x' });
  assert.equal(r.isError, true);
  assert.match(text(r), /unknown environment "cobol"/);
  const t = await execute(client, { environment: 'python', code: 'x', timeout_seconds: 9999 });
  assert.equal(t.isError, true);
  assert.match(text(t), /at most 10/);
});

test('unknown tool is a protocol error', async () => {
  await assert.rejects(client.callTool({ name: 'nope', arguments: {} }), (e) => {
    assert.ok(e instanceof McpError);
    assert.equal(e.code, -32602);
    return true;
  });
});

test('timeout kills an infinite loop', async () => {
  const t0 = Date.now();
  const r = await execute(client, { environment: 'python', code: 'while True: pass', timeout_seconds: 1 });
  assert.equal(r.isError, true);
  assert.equal(r.structuredContent.timed_out, true);
  assert.match(text(r), /timed out after 1 s/);
  assert.ok(Date.now() - t0 < 8000);
});

test('progress notifications for a long run', async () => {
  const seen = [];
  const r = await execute(
    client,
    { environment: 'shell', code: 'sleep 2.5; echo done' },
    { onprogress: (p) => seen.push(p) },
  );
  assert.equal(text(r), 'done\n');
  assert.ok(seen.length >= 2, `got ${seen.length} progress notifications`);
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i].progress > seen[i - 1].progress);
  assert.equal(seen[0].total, 10);
});

// Host pids whose command line holds `needle` (sandboxed processes are visible from the host).
function hostPidsWith(needle) {
  const pids = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    let cmd;
    try {
      cmd = fs.readFileSync(`/proc/${d}/cmdline`, 'latin1');
    } catch {
      continue;
    }
    if (cmd.includes(needle)) pids.push(Number(d));
  }
  return pids;
}

async function waitFor(cond, what, ms = 60000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// A unique `sleep` argument: the sandboxed process can be found on the host by it.
function uniqueSleep() {
  return `1000.${process.pid}${Math.floor(Math.random() * 1e6)}`;
}

test('cancellation kills the execution and the server keeps serving', async () => {
  const ac = new AbortController();
  const arg = uniqueSleep();
  const call = execute(client, { environment: 'shell', code: `sleep ${arg}; echo done` }, { signal: ac.signal });
  call.catch(() => {});
  // The sandboxed process is seen running on the host first (so the check below can see it)...
  await waitFor(() => hostPidsWith(arg).length > 0, 'the sandboxed sleep to start');
  ac.abort('test');
  await assert.rejects(call);
  // ...and after the cancellation it is gone (killed, not left running in its sandbox).
  await waitFor(() => hostPidsWith(arg).length === 0, 'the cancelled process to die');
  const r = await execute(client, { environment: 'python', code: 'print("alive")' });
  assert.equal(text(r), 'alive\n');
});

test('several calls in flight at once', async () => {
  // All four sandboxes are seen running at the same time on the host (no timing assumption),
  // then all four are cancelled and die.
  const args = [0, 1, 2, 3].map(() => uniqueSleep());
  const acs = args.map(() => new AbortController());
  const calls = args.map((a, i) => execute(client, { environment: 'shell', code: `sleep ${a}` }, { signal: acs[i].signal }));
  calls.forEach((c) => c.catch(() => {}));
  await waitFor(() => args.every((a) => hostPidsWith(a).length > 0), 'four sandboxes running at once');
  acs.forEach((ac) => ac.abort('test'));
  for (const c of calls) await assert.rejects(c);
  await waitFor(() => args.every((a) => hostPidsWith(a).length === 0), 'the four processes to die');
});

// ---- isolation ---------------------------------------------------------------------------------

test('no network: only loopback inside, host loopback unreachable', async () => {
  const server = net.createServer((s) => s.end('host-secret\n'));
  await new Promise((res) => server.listen(0, '127.0.0.1', res));
  const port = server.address().port;
  try {
    const r = await execute(client, {
      environment: 'python',
      code: [
        'import os, socket',
        'lines = open("/proc/net/dev").read().splitlines()[2:]',
        'print(sorted(l.split(":")[0].strip() for l in lines))',
        's = socket.socket()',
        's.settimeout(2)',
        'try:',
        `    s.connect(("127.0.0.1", ${port})); print("CONNECTED", s.recv(100))`,
        'except OSError as e:',
        '    print("refused")',
      ].join('\n'),
    });
    assert.equal(r.structuredContent.stdout, "['lo']\nrefused\n");
  } finally {
    server.close();
  }
});

test('host files are not readable, system files are not writable', async () => {
  const dir = tempDir('paddock-mcp-secret-');
  const secret = path.join(dir, 'secret.txt');
  fs.writeFileSync(secret, 'TOP-SECRET');
  const r = await execute(client, {
    environment: 'shell',
    code: [
      `cat ${secret} 2>/dev/null && echo READ-SECRET`,
      'cat /etc/shadow 2>/dev/null && echo READ-SHADOW',
      'ls /root 2>/dev/null && echo LIST-ROOT',
      'ls /home/* 2>/dev/null && echo LIST-HOME',
      'touch /usr/paddock-x 2>/dev/null && echo WROTE-USR',
      'touch /etc/paddock-x 2>/dev/null && echo WROTE-ETC',
      'echo checked',
    ].join('\n'),
  });
  assert.equal(r.structuredContent.stdout, 'checked\n');
  fs.rmSync(dir, { recursive: true });
});

test('workspace is fresh: no files, variables or processes from the previous call', async () => {
  const a = await execute(client, {
    environment: 'shell',
    code: 'echo leak > "$HOME/leak"; echo leak > /tmp/leak; (sleep 300 &) ; pwd',
  });
  assert.equal(a.isError, false, text(a));
  const b = await execute(client, {
    environment: 'shell',
    code: 'ls -A "$HOME" /tmp | grep -c leak; pgrep -c sleep || true; echo "$(pwd) $HOME"',
  });
  assert.equal(a.structuredContent.stdout, '/workspace\n');
  assert.equal(b.structuredContent.stdout, '0\n0\n/workspace /workspace\n');
  const p1 = await execute(client, { environment: 'python', code: 'secret_var = 1' });
  assert.equal(p1.isError, false);
  const p2 = await execute(client, { environment: 'python', code: 'print(secret_var)' });
  assert.equal(p2.isError, true);
  assert.match(p2.structuredContent.stderr, /NameError/);
});

test('memory bomb is contained and reported', async () => {
  const r = await execute(client, {
    environment: 'python',
    code: 'x = []\nwhile True: x.append(bytearray(16 << 20))',
  });
  assert.equal(r.isError, true);
  assert.ok(r.structuredContent.oom || /MemoryError/.test(r.structuredContent.stderr), JSON.stringify(r.structuredContent));
});

test('fork bomb is contained and reported', async () => {
  const r = await execute(client, {
    environment: 'shell',
    code: 'bomb() { bomb | bomb & }; bomb; sleep 2; echo survived',
    timeout_seconds: 5,
  });
  // Contained by the process limit, not merely by the timeout: the result says the limit was
  // reached (cgroup pids), or forks failed with EAGAIN (RLIMIT_NPROC without cgroups).
  const limitHit = /process limit of \d+ reached/.test(text(r)) ||
    /fork: (retry: )?Resource temporarily unavailable/.test(r.structuredContent.stderr);
  assert.ok(limitHit, text(r));
  const ping = await client.ping();
  assert.deepEqual(ping, {});
});

test('output flood is truncated with a marker', async () => {
  const r = await execute(client, { environment: 'python', code: 'import sys\nsys.stdout.write("x" * (10 << 20))' });
  assert.equal(r.structuredContent.truncated, true);
  assert.equal(r.structuredContent.stdout.length, 65536);
  assert.equal(r.structuredContent.stdout_bytes, 10 << 20);
  assert.match(text(r), /\[stdout truncated: 64\.0 KiB of 10\.0 MiB shown\]/);
});

// ---- sessions ----------------------------------------------------------------------------------

for (const [env, first, second, expected] of [
  ['python', 'x = 41', 'print(x + 1)', '42\n'],
  ['shell', 'export GREETING=hi; mkdir d; cd d; echo file > f', 'echo $GREETING; cat f; basename "$PWD"', 'hi\nfile\nd\n'],
  ['node', 'globalThis.counter = 41', 'console.log(counter + 1)', '42\n'],
]) {
  test(`sessions keep state (${env})`, async () => {
    const a = await execute(client, { environment: env, code: first, session: 'new' });
    assert.equal(a.isError, false, text(a));
    const id = a.structuredContent.session;
    assert.match(id, /^s-[0-9a-f]{32}$/);
    const b = await execute(client, { environment: env, code: second, session: id });
    assert.equal(b.isError, false, text(b));
    assert.equal(b.structuredContent.stdout, expected);
    const c = await client.callTool({ name: 'close_session', arguments: { session: id } });
    assert.equal(c.isError, false);
    const d = await execute(client, { environment: env, code: second, session: id });
    assert.equal(d.isError, true);
  });
}

test('--project is readable at /project, not writable, nothing else of the host', async () => {
  const dir = tempDir('paddock-mcp-project-');
  fs.writeFileSync(path.join(dir, 'README'), 'project file\n');
  const c = await connectStdio(['--project', dir]);
  try {
    const r = await execute(c, {
      environment: 'shell',
      code: `cat /project/README; touch /project/x 2>/dev/null && echo WROTE; ls ${dir} 2>/dev/null && echo HOST-PATH; echo done`,
    });
    assert.equal(r.structuredContent.stdout, 'project file\ndone\n');
  } finally {
    await c.close();
    fs.rmSync(dir, { recursive: true });
  }
});

test('allow_domains: only the listed hosts, each attempt reported, in one-shot calls and sessions', async () => {
  // Two servers on the host's loopback; the environment may reach the first one only. Addresses
  // are used instead of names (no resolver in tests), so the code asks the proxy directly: a
  // loopback address in NO_PROXY would otherwise bypass it (and then be refused as nameless).
  const servers = [];
  for (let i = 0; i < 2; i++) {
    const server = net.createServer((s) => s.end(`server-${i}\n`));
    await new Promise((res) => server.listen(0, '127.0.0.1', res));
    servers.push(server);
  }
  const [ok, no] = servers.map((s) => s.address().port);
  const config = writeConfig(`${TEST_CONFIG}[environments.python]\nallow_domains = ["127.0.0.1:${ok}"]\n`);
  const c = await connectStdio([], config);
  const code = [
    'import socket',
    'def via_proxy(port):',
    '    s = socket.create_connection(("127.0.0.1", 3128), timeout=5)',
    '    s.sendall(b"CONNECT 127.0.0.1:%d HTTP/1.1\\r\\n\\r\\n" % port)',
    '    buf = b""',
    '    while b"\\r\\n\\r\\n" not in buf: buf += s.recv(4096)',
    '    head, _, rest = buf.partition(b"\\r\\n\\r\\n")',
    '    status = head.split(b"\\r\\n")[0].decode()',
    '    if " 200 " not in status: return status',
    '    while not rest.endswith(b"\\n"): rest += s.recv(100)  # the server speaks first',
    '    return rest.decode().strip()',
    `print(via_proxy(${ok}))`,
    `print(via_proxy(${no}))`,
  ].join('\n');
  try {
    const list = await c.callTool({ name: 'list_environments', arguments: {} });
    const py = list.structuredContent.environments.find((e) => e.name === 'python');
    assert.deepEqual(py.allow_domains, [`127.0.0.1:${ok}`]);
    assert.match(text(list), new RegExp(`network only to 127\\.0\\.0\\.1:${ok}`));

    const r = await execute(c, { environment: 'python', code });
    assert.equal(r.structuredContent.stdout, 'server-0\nHTTP/1.1 403 Forbidden\n', text(r));
    const net1 = r.structuredContent.network;
    assert.deepEqual(net1.map((d) => [d.host, d.port, d.protocol, d.allowed, d.count]),
                     [['127.0.0.1', ok, 'connect', true, 1], ['127.0.0.1', no, 'connect', false, 1]]);
    assert.match(text(r), new RegExp(`\\[network: blocked 127\\.0\\.0\\.1:${no};`));

    // A session: each call reports its own attempts, not the ones before it.
    const first = await execute(c, { environment: 'python', code, session: 'new' });
    const sid = first.structuredContent.session;
    assert.equal(first.structuredContent.network.length, 2, text(first));
    const second = await execute(c, { environment: 'python', session: sid, code: `print(via_proxy(${ok}))` });
    assert.equal(second.structuredContent.stdout, 'server-0\n', text(second));
    assert.deepEqual(second.structuredContent.network.map((d) => [d.port, d.allowed]), [[ok, true]]);
    assert.doesNotMatch(text(second), /network: blocked/);

    // Environments without lists say nothing about the network.
    const shell = await execute(c, { environment: 'shell', code: 'echo hi' });
    assert.equal(shell.structuredContent.network, undefined);
  } finally {
    await c.close();
    for (const s of servers) s.close();
  }
});

test('the server still answers after everything above', async () => {
  assert.deepEqual(await client.ping(), {});
  const r = await execute(client, { environment: 'python', code: 'print("still here")' });
  assert.equal(text(r), 'still here\n');
});
