#!/usr/bin/env node
// A scripted mock model server for tests/agents/run.sh. Node's standard library only.
//
// Speaks the three APIs the agents use, streaming (SSE) when the request asks for it:
//   POST /v1/messages          Anthropic Messages (Claude Code)
//   POST /v1/responses         OpenAI Responses (Codex)
//   POST /v1/chat/completions  OpenAI Chat Completions (pi with a custom provider)
// Anything else an agent asks at start (count_tokens, model lists, ...) gets a harmless answer;
// unknown routes are logged.
//
// The script, by the number of this mock's tool results already in the conversation:
//   0: the agent's write tool (or its shell) writes hello.txt in the current directory
//   1: its shell runs `cat ~/.ssh/id_ed25519` (must fail inside paddock)
//   2: its shell tries to connect to a second loopback listener this process opened and to another
//      host, and to write outside the project (each must fail or stay in the sandbox)
//   3: a final text answer
// Requests without tools (titles, summaries, quota checks) get a short text answer.
//
// usage: node mock_model.mjs LOGDIR
// Prints one line, "PORTS <model port> <probe port>", once both listeners are up.
// LOGDIR/requests.jsonl: every request (method, url, body); LOGDIR/tool_results.jsonl: every
// tool result that came back (step, text); LOGDIR/probe.jsonl: connections to the probe listener.
import http from 'node:http';
import net from 'node:net';
import fs from 'node:fs';
import path from 'node:path';

const logdir = process.argv[2];
if (!logdir) {
  console.error('usage: mock_model.mjs LOGDIR');
  process.exit(2);
}
fs.mkdirSync(logdir, { recursive: true });
const log = (file, obj) => fs.appendFileSync(path.join(logdir, file), JSON.stringify(obj) + '\n');

const OTHER_HOST = 'other-host.paddock-test.example.com';
const HELLO = 'hello from the mock model\n';
const FINAL = 'Done: hello.txt is written.';
let probePort = 0;
let modelPort = 0;

// The shell lines of steps 1 and 2. Each prints a marker that proves the command ran.
const catSecret = () => 'cat ~/.ssh/id_ed25519; echo "CAT-EXIT=$?"';
// The connections are made by bash (its /dev/tcp), whatever shell the agent runs the line in:
// Claude Code picks zsh, which has no /dev/tcp, when SHELL is not bash and zsh is installed.
// The shell that ran the line is printed first, for the failure messages. The mock's own port
// (allowed) first, so a connection that cannot be made at all cannot pass for a refusal; then the
// second loopback listener, another host (by name: paddock's network log shows that paddock
// refused it, not just an offline machine), and writes outside the project: the host path
// MOCK_OUTSIDE (beside the project) and the sandbox's HOME.
const tcp = (host, port) => `bash -c '(exec 3<>/dev/tcp/${host}/${port})' 2>/dev/null`;
const probe = () =>
  `echo "AGENT-SHELL=$(readlink /proc/$$/exe)"; ` +
  `${tcp('127.0.0.1', modelPort)} && echo MOCK-CONNECTED || echo MOCK-REFUSED; ` +
  `${tcp('127.0.0.1', probePort)} && echo PROBE-CONNECTED || echo PROBE-REFUSED; ` +
  `timeout 5 ${tcp(OTHER_HOST, 80)} && echo OTHER-CONNECTED || echo OTHER-REFUSED; ` +
  `echo escaped > '${process.env.MOCK_OUTSIDE || '/nonexistent/outside'}'; echo "OUTSIDE-EXIT=$?"; ` +
  `echo escaped > ~/outside-home.txt; echo "HOME-EXIT=$?"`;
const writeShell = () => `printf 'hello from the mock model\\n' > hello.txt && echo WRITE-OK`;

// Tool calls, per agent tool set: [name, arguments] for a step.
function toolCall(step, toolNames, cwd) {
  const has = (n) => toolNames.includes(n);
  if (step === 0) {
    if (has('Write')) return ['Write', { file_path: path.join(cwd || '.', 'hello.txt'), content: HELLO }];
    if (has('write')) return ['write', { path: 'hello.txt', content: HELLO }];
  }
  const line = step === 0 ? writeShell() : step === 1 ? catSecret() : probe();
  if (has('Bash')) return ['Bash', { command: line, description: 'paddock test step ' + step }];
  if (has('bash')) return ['bash', { command: line }];
  if (has('exec_command')) return ['exec_command', { cmd: line }];
  if (has('shell_command')) return ['shell_command', { command: line }];
  if (has('shell')) return ['shell', { command: ['bash', '-c', line] }];
  return null;
}

const ID = 'paddock_';
const readBody = (req) =>
  new Promise((resolve) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
const textOf = (c) =>
  typeof c === 'string' ? c : Array.isArray(c) ? c.map((x) => (typeof x === 'string' ? x : x.text ?? x.output ?? textOf(x.content ?? ''))).join('') : JSON.stringify(c ?? '');

// The working directory the agent announces in its system prompt (Claude Code wants absolute paths).
function cwdFrom(body) {
  const s = JSON.stringify(body);
  const m = s.match(/(?:Primary working directory|Working directory|cwd)[^/]{0,20}(\/[^\\"<\n ]+)/);
  return m ? m[1] : process.env.MOCK_PROJECT || '';
}

function sse(res) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  return (event, data) => res.write((event ? `event: ${event}\n` : '') + `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
}

let seq = 0;
let requests = 0;
const MAX_REQUESTS = 60;
const lastResults = new Map(); // per API: how many results were logged, so each is logged once

// results: [{id, text}], this mock's tool results in conversation order; ids end in _STEP.
function logNew(api, results) {
  const seen = lastResults.get(api) || 0;
  for (const r of results.slice(seen)) log('tool_results.jsonl', { step: Number(r.id.split('_').pop()), text: r.text });
  lastResults.set(api, Math.max(seen, results.length));
}

// ---- Anthropic Messages ----
function anthropic(body, res) {
  const tools = (body.tools || []).map((t) => t.name);
  const results = [];
  for (const m of body.messages || []) {
    if (!Array.isArray(m.content)) continue;
    for (const b of m.content) {
      if (b.type === 'tool_result' && String(b.tool_use_id).includes(ID)) results.push({ id: b.tool_use_id, text: textOf(b.content) });
    }
  }
  logNew('anthropic', results);
  const step = results.length;
  const call = tools.length && step < 3 ? toolCall(step, tools, cwdFrom(body)) : null;
  const id = `msg_${++seq}`;
  const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const block = call
    ? { type: 'tool_use', id: `toolu_${ID}${seq}_${step}`, name: call[0], input: call[1] }
    : { type: 'text', text: tools.length ? FINAL : 'ok' };
  const stop = call ? 'tool_use' : 'end_turn';
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id, type: 'message', role: 'assistant', model: body.model, content: [block], stop_reason: stop, stop_sequence: null, usage }));
    return;
  }
  const send = sse(res);
  send('message_start', { type: 'message_start', message: { id, type: 'message', role: 'assistant', model: body.model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } });
  if (call) {
    send('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
    send('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } });
  } else {
    send('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    send('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: block.text } });
  }
  send('content_block_stop', { type: 'content_block_stop', index: 0 });
  send('message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } });
  send('message_stop', { type: 'message_stop' });
  res.end();
}

// ---- OpenAI Responses ----
function responses(body, res) {
  const tools = (body.tools || []).map((t) => t.name || t.type);
  const results = [];
  for (const it of Array.isArray(body.input) ? body.input : []) {
    if ((it.type === 'function_call_output' || it.type === 'custom_tool_call_output') && String(it.call_id).includes(ID)) {
      results.push({ id: it.call_id, text: textOf(it.output) });
    }
  }
  logNew('responses', results);
  const step = results.length;
  const call = tools.length && step < 3 ? toolCall(step, tools, cwdFrom(body)) : null;
  const rid = `resp_${++seq}`;
  const usage = { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 };
  const item = call
    ? { type: 'function_call', id: `fc_${seq}`, call_id: `call_${ID}${seq}_${step}`, name: call[0], arguments: JSON.stringify(call[1]), status: 'completed' }
    : { type: 'message', id: `msg_${seq}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: tools.length ? FINAL : 'ok', annotations: [] }] };
  const base = { id: rid, object: 'response', created_at: Math.floor(Date.now() / 1000), model: body.model, status: 'in_progress', output: [] };
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ...base, status: 'completed', output: [item], usage }));
    return;
  }
  const send = sse(res);
  let n = 0;
  const ev = (type, o) => send(type, { type, sequence_number: n++, ...o });
  ev('response.created', { response: base });
  ev('response.in_progress', { response: base });
  if (call) {
    ev('response.output_item.added', { output_index: 0, item: { ...item, arguments: '', status: 'in_progress' } });
    ev('response.function_call_arguments.delta', { item_id: item.id, output_index: 0, delta: item.arguments });
    ev('response.function_call_arguments.done', { item_id: item.id, output_index: 0, arguments: item.arguments });
  } else {
    const text = item.content[0].text;
    ev('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } });
    ev('response.content_part.added', { item_id: item.id, output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
    ev('response.output_text.delta', { item_id: item.id, output_index: 0, content_index: 0, delta: text });
    ev('response.output_text.done', { item_id: item.id, output_index: 0, content_index: 0, text });
    ev('response.content_part.done', { item_id: item.id, output_index: 0, content_index: 0, part: item.content[0] });
  }
  ev('response.output_item.done', { output_index: 0, item });
  ev('response.completed', { response: { ...base, status: 'completed', output: [item], usage } });
  res.end();
}

// ---- OpenAI Chat Completions ----
function chat(body, res) {
  const tools = (body.tools || []).map((t) => t.function?.name || t.name);
  const results = [];
  for (const m of body.messages || []) {
    if (m.role === 'tool' && String(m.tool_call_id).includes(ID)) results.push({ id: m.tool_call_id, text: textOf(m.content) });
  }
  logNew('chat', results);
  const step = results.length;
  const call = tools.length && step < 3 ? toolCall(step, tools, cwdFrom(body)) : null;
  const id = `chatcmpl_${++seq}`;
  const created = Math.floor(Date.now() / 1000);
  const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
  const tc = call ? { id: `call_${ID}${seq}_${step}`, type: 'function', function: { name: call[0], arguments: JSON.stringify(call[1]) } } : null;
  const text = tools.length ? FINAL : 'ok';
  const finish = call ? 'tool_calls' : 'stop';
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    const message = call ? { role: 'assistant', content: null, tool_calls: [tc] } : { role: 'assistant', content: text };
    res.end(JSON.stringify({ id, object: 'chat.completion', created, model: body.model, choices: [{ index: 0, message, finish_reason: finish }], usage }));
    return;
  }
  const send = sse(res);
  const chunk = (delta, finish_reason = null, extra = {}) =>
    send(null, { id, object: 'chat.completion.chunk', created, model: body.model, choices: [{ index: 0, delta, finish_reason }], ...extra });
  chunk({ role: 'assistant', content: '' });
  if (call) chunk({ tool_calls: [{ index: 0, ...tc }] });
  else chunk({ content: text });
  chunk({}, finish);
  if (body.stream_options?.include_usage) send(null, { id, object: 'chat.completion.chunk', created, model: body.model, choices: [], usage });
  send(null, '[DONE]');
  res.end();
}

const server = http.createServer(async (req, res) => {
  const raw = await readBody(req);
  let body = {};
  try {
    body = raw ? JSON.parse(raw) : {};
  } catch {
    body = { unparsed: raw.slice(0, 2000) };
  }
  const url = req.url.split('?')[0];
  if (++requests > MAX_REQUESTS) {
    // A runaway loop (the agent never sends the result back the way this mock expects): stop it.
    log('errors.jsonl', { url: req.url, error: `more than ${MAX_REQUESTS} requests` });
    res.writeHead(400, { 'content-type': 'application/json' });
    return res.end(JSON.stringify({ error: { type: 'invalid_request_error', message: 'mock: too many requests' } }));
  }
  log('requests.jsonl', { time: new Date().toISOString(), method: req.method, url: req.url, headers: req.headers, body });
  try {
    if (req.method === 'POST' && url.endsWith('/messages/count_tokens')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ input_tokens: 10 }));
    }
    if (req.method === 'POST' && url.endsWith('/messages')) return anthropic(body, res);
    if (req.method === 'POST' && url.endsWith('/responses')) return responses(body, res);
    if (req.method === 'POST' && url.endsWith('/chat/completions')) return chat(body, res);
    if (req.method === 'GET' && url.endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ object: 'list', data: [{ id: 'mock-model', object: 'model', type: 'model', display_name: 'Mock', created: 0, owned_by: 'paddock' }], models: [] }));
    }
    log('unknown_routes.jsonl', { method: req.method, url: req.url });
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { type: 'not_found', message: `mock: no route ${req.method} ${url}` } }));
  } catch (e) {
    log('errors.jsonl', { url: req.url, error: String(e.stack || e) });
    if (!res.headersSent) res.writeHead(500);
    res.end();
  }
});

// The second loopback listener: any connection to it is an escape, recorded.
const probeServer = net.createServer((sock) => {
  log('probe.jsonl', { time: new Date().toISOString(), remote: sock.remoteAddress });
  sock.end('PROBE-CONNECTED\n');
});

server.listen(0, '127.0.0.1', () => {
  probeServer.listen(0, '127.0.0.1', () => {
    probePort = probeServer.address().port;
    modelPort = server.address().port;
    process.stdout.write(`PORTS ${server.address().port} ${probePort}\n`);
  });
});
process.on('SIGTERM', () => process.exit(0));
