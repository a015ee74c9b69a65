// Starts `paddock mcp` under the official MCP TypeScript SDK client (stdio or Streamable HTTP).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export const PADDOCK = process.env.PADDOCK_BIN;
if (!PADDOCK) throw new Error('set PADDOCK_BIN to the paddock binary (tests/mcp/run.sh does)');

// Small limits so that bombs and floods end quickly.
export const TEST_CONFIG = `
[defaults]
timeout_seconds = 10
memory_mb = 128
max_output_bytes = 65536
pids = 32
warm = 1
session_idle_seconds = 60

`;

export function tempDir(prefix) {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function writeConfig(text = TEST_CONFIG) {
  const dir = tempDir('paddock-mcp-cfg-');
  const file = path.join(dir, 'mcp.toml');
  fs.writeFileSync(file, text);
  return file;
}

export async function connectStdio(extraArgs = [], config = writeConfig()) {
  const transport = new StdioClientTransport({
    command: PADDOCK,
    args: ['mcp', '--config', config, ...extraArgs],
    stderr: 'inherit',
  });
  const client = new Client({ name: 'paddock-tests', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

// Starts `paddock mcp --http 127.0.0.1:0`-style on a free port and connects to it.
// Starts `paddock mcp --http` on a port the kernel picks; returns its URL and the bearer token it
// printed (null with --danger-http-no-auth).
export async function startHttp(extraArgs = [], config = writeConfig()) {
  const child = spawn(PADDOCK, ['mcp', '--config', config, '--http', '127.0.0.1:0', ...extraArgs], {
    stdio: ['ignore', 'inherit', 'pipe'],
  });
  let token = null;
  const url = await new Promise((resolve, reject) => {
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
      process.stderr.write(d);
      const t = err.match(/bearer token \(.*\): ([0-9a-f]+)/);
      if (t) token = t[1];
      const m = err.match(/serving MCP \(Streamable HTTP\) at (http:\/\/\S+)/);
      if (m) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`paddock mcp --http exited with ${code}: ${err}`)));
  });
  return { url, child, token };
}

export async function connectHttp(url, token) {
  const opts = token ? { requestInit: { headers: { Authorization: `Bearer ${token}` } } } : undefined;
  const transport = new StreamableHTTPClientTransport(new URL(url), opts);
  const client = new Client({ name: 'paddock-tests-http', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

export async function execute(client, args, options) {
  return client.callTool({ name: 'execute', arguments: args }, undefined, options);
}

export function text(result) {
  return result.content.map((c) => c.text ?? '').join('');
}
