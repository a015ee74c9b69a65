// What a call leaves behind when it does not end on its own: a session call past its timeout
// (issue 26, item 12: killed, reported timed_out, the session gone with every process in it), and
// a `code = "file"` workspace the code made deeper than 4,096 levels and unreadable (issue 25:
// removed, nothing left in the server's TMPDIR).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { PADDOCK, connectStdio, execute, text, tempDir, writeConfig, TEST_CONFIG } from './lib/harness.mjs';

// Host processes whose command line holds MARKER.
function alive(marker) {
  const found = [];
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker)) found.push(pid);
    } catch {}
  }
  return found;
}

test('a session call past its timeout is killed, reported timed_out, and its session is gone', { timeout: 45000 }, async () => {
  const client = await connectStdio();
  try {
    const a = await execute(client, { environment: 'python', code: 'x = 1', session: 'new' });
    assert.equal(a.isError, false, text(a));
    const id = a.structuredContent.session;
    const marker = `paddock-session-timeout-${process.pid}-${Date.now()}`;
    const t0 = Date.now();
    const r = await execute(client, {
      environment: 'python',
      session: id,
      timeout_seconds: 1,
      code: `import subprocess\nsubprocess.Popen(["/bin/sh", "-c", "sleep 600; echo ${marker}"])\nwhile True: pass`,
    });
    assert.equal(r.isError, true, text(r));
    assert.equal(r.structuredContent.timed_out, true, text(r));
    assert.match(r.structuredContent.stderr, /ended by the timeout/);
    assert.ok(Date.now() - t0 < 15000, `took ${Date.now() - t0} ms`);
    // Every process of the session went with it: the interpreter and what it started.
    let left = alive(marker);
    for (let i = 0; i < 50 && left.length; i++) {
      await new Promise((res) => setTimeout(res, 100));
      left = alive(marker);
    }
    assert.deepEqual(left, [], 'processes of the timed-out session are still running');
    const b = await execute(client, { environment: 'python', code: 'print(x)', session: id });
    assert.equal(b.isError, true, 'the session survived its timeout');
  } finally {
    await client.close();
  }
});

test('a code="file" workspace deeper than 4096 levels, made unreadable, is removed', { timeout: 150000 }, async () => {
  const tmp = tempDir('paddock-mcp-tmpdir-');
  const config = writeConfig(`${TEST_CONFIG}[environments.deep]
command = ["/usr/bin/python3"]
code = "file"
file_name = "main.py"
timeout_seconds = 90
`);
  const transport = new StdioClientTransport({
    command: PADDOCK,
    args: ['mcp', '--config', config],
    env: { ...getDefaultEnvironment(), TMPDIR: tmp },
    stderr: 'inherit',
  });
  const client = new Client({ name: 'paddock-tests', version: '1.0.0' });
  await client.connect(transport);
  try {
    const r = await execute(client, {
      environment: 'deep',
      timeout_seconds: 90,
      code: 'import os\nos.chmod(".", 0o700)\nfor i in range(4200):\n    os.mkdir("d")\n    os.chdir("d")\n' +
        'open("f", "w").write("x")\nos.chmod(".", 0)\nprint("DEPTH", i + 1)\n',
    });
    assert.equal(r.isError, false, text(r));
    assert.equal(r.structuredContent.stdout, 'DEPTH 4200\n');
  } finally {
    await client.close();
  }
  // The server is gone, its cleanup done: nothing of the workspace (nor its parent) is left.
  let left = fs.readdirSync(tmp);
  for (let i = 0; i < 50 && left.length; i++) {
    await new Promise((res) => setTimeout(res, 100));
    left = fs.readdirSync(tmp);
  }
  if (left.length) fs.rmSync(tmp, { recursive: true, force: true }); // best effort: may fail as the server did
  assert.deepEqual(left, [], `left in TMPDIR: ${left.join(', ')}`);
  fs.rmdirSync(tmp);
});
