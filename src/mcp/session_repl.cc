#include "mcp/session_repl.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace paddock::mcp {
namespace {

constexpr const char* kPythonRepl = R"PY(import os, sys, traceback
reply, limit = int(sys.argv[1]), int(sys.argv[2])
ctl = os.fdopen(os.dup(0), 'rb', buffering=0)
_n = os.open('/dev/null', os.O_RDONLY); os.dup2(_n, 0); os.close(_n)
os.set_inheritable(reply, False)
d = os.path.join(os.environ.get('TMPDIR') or '/tmp', '.paddock-session')
os.makedirs(d, mode=0o700, exist_ok=True)
g = {'__name__': '__main__', '__builtins__': __builtins__}
def readn(n):
    b = b''
    while len(b) < n:
        c = ctl.read(n - len(b))
        if not c: os._exit(0)
        b += c
    return b
def readline():
    b = b''
    while not b.endswith(b'\n'):
        c = ctl.read(1)
        if not c: os._exit(0)
        b += c
    return b
while True:
    src = readn(int(readline())).decode('utf-8', 'replace')
    fo = os.open(d + '/out', os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
    fe = os.open(d + '/err', os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
    sys.stdout.flush(); sys.stderr.flush()
    s1, s2 = os.dup(1), os.dup(2)
    os.dup2(fo, 1); os.dup2(fe, 2)
    rc = 0
    try:
        exec(compile(src, '<code>', 'exec'), g)
    except SystemExit as e:
        if e.code is None: rc = 0
        elif isinstance(e.code, int): rc = e.code & 255
        else: print(e.code, file=sys.stderr); rc = 1
    except BaseException as e:
        traceback.print_exception(type(e), e, e.__traceback__.tb_next); rc = 1
    for f in (sys.stdout, sys.stderr):
        try: f.flush()
        except Exception: pass
    os.dup2(s1, 1); os.dup2(s2, 2); os.close(s1); os.close(s2)
    parts = []
    for f in (fo, fe):
        size = os.fstat(f).st_size
        parts.append((size, os.pread(f, min(size, limit), 0)))
        os.close(f)
    msg = ('%d %d %d %d %d\n' % (rc, parts[0][0], parts[1][0], len(parts[0][1]), len(parts[1][1]))).encode() + parts[0][1] + parts[1][1]
    while msg:
        msg = msg[os.write(reply, msg):]
)PY";

constexpr const char* kShellRepl = R"SH(reply=$1 limit=$2
exec {__ctl}<&0 0</dev/null
__d=${TMPDIR:-/tmp}/.paddock-session
mkdir -p -m 700 "$__d" || exit 1
while IFS= read -r __n <&$__ctl; do
  __src=$(head -c "$__n" <&$__ctl; echo .)
  __src=${__src%.}
  eval "$__src" >"$__d/out" 2>"$__d/err" </dev/null {__ctl}<&- {reply}>&-
  __rc=$?
  __o=$(wc -c <"$__d/out") __e=$(wc -c <"$__d/err")
  __ok=$(( __o < limit ? __o : limit )) __ek=$(( __e < limit ? __e : limit ))
  { printf '%d %d %d %d %d\n' "$__rc" "$__o" "$__e" "$__ok" "$__ek"
    head -c "$__ok" "$__d/out"; head -c "$__ek" "$__d/err"; } >&$reply
done
)SH";

constexpr const char* kNodeRepl = R"JS(const fs = require('fs'), vm = require('vm'), util = require('util');
const reply = +process.argv[1], limit = +process.argv[2];
const ctl = fs.openSync('/proc/self/fd/0', 'r');
let pending = Buffer.alloc(0);
function fill() {
  const b = Buffer.alloc(65536);
  let n;
  for (;;) { try { n = fs.readSync(ctl, b, 0, b.length, null); break; } catch (e) { if (e.code !== 'EAGAIN') throw e; } }
  if (n === 0) process.exit(0);
  pending = Buffer.concat([pending, b.subarray(0, n)]);
}
function readline() { let i; while ((i = pending.indexOf(10)) < 0) fill(); const l = pending.subarray(0, i).toString(); pending = pending.subarray(i + 1); return l; }
function readn(n) { while (pending.length < n) fill(); const r = pending.subarray(0, n); pending = pending.subarray(n); return r; }
function writeAll(buf) { let off = 0; while (off < buf.length) off += fs.writeSync(reply, buf, off); }
for (;;) {
  const src = readn(+readline()).toString('utf8');
  const out = [], err = [];
  const ow = process.stdout.write, ew = process.stderr.write;
  process.stdout.write = (c, e, cb) => { out.push(Buffer.from(c, typeof e === 'string' ? e : undefined)); if (typeof cb === 'function') cb(); else if (typeof e === 'function') e(); return true; };
  process.stderr.write = (c, e, cb) => { err.push(Buffer.from(c, typeof e === 'string' ? e : undefined)); if (typeof cb === 'function') cb(); else if (typeof e === 'function') e(); return true; };
  let rc = 0;
  const realExit = process.exit;
  process.exit = (c) => { throw { __paddockExit: c === undefined ? 0 : c }; };
  try { vm.runInThisContext(src, { filename: '<code>' }); }
  catch (e) {
    if (e && e.__paddockExit !== undefined) rc = e.__paddockExit & 255;
    else { err.push(Buffer.from((e && e.stack ? e.stack : util.inspect(e)) + '\n')); rc = 1; }
  }
  process.exit = realExit;
  process.stdout.write = ow; process.stderr.write = ew;
  const o = Buffer.concat(out), e = Buffer.concat(err);
  const ok = o.subarray(0, limit), ek = e.subarray(0, limit);
  writeAll(Buffer.concat([Buffer.from(`${rc} ${o.length} ${e.length} ${ok.length} ${ek.length}\n`), ok, ek]));
}
)JS";

bool read_some(int fd, std::string& buf) {
  char tmp[65536];
  ssize_t n = sys::retry_eintr([&] { return ::read(fd, tmp, sizeof tmp); });
  if (n <= 0) return false;
  buf.append(tmp, static_cast<std::size_t>(n));
  return true;
}

}  // namespace

Result<ReplLauncher> repl_launcher(const Environment& env, int reply_fd) {
  if (!env.builtin || env.command.empty())
    return make_error("sessions are available for the built-in environments only",
                      env.name);
  std::string limit = std::to_string(env.limits.max_output_bytes);
  std::string fd = std::to_string(reply_fd);
  const std::string& program = env.command[0];
  if (env.name == "python") return ReplLauncher{{program, "-c", kPythonRepl, fd, limit}};
  if (env.name == "shell") return ReplLauncher{{program, "-c", kShellRepl, "bash", fd, limit}};
  if (env.name == "node") return ReplLauncher{{program, "-e", kNodeRepl, fd, limit}};
  return make_error("no session launcher for this environment", env.name);
}

ReplClient::ReplClient(sys::UniqueFd to_repl, sys::UniqueFd from_repl, std::uint64_t max_output)
    : to_(std::move(to_repl)), from_(std::move(from_repl)), max_output_(max_output) {}

Result<ReplReply> ReplClient::run(const std::string& code) {
  std::string request = std::to_string(code.size()) + "\n" + code;
  std::string_view rest = request;
  while (!rest.empty()) {
    ssize_t n = sys::retry_eintr([&] { return ::write(to_.get(), rest.data(), rest.size()); });
    if (n <= 0) return errno_error("the session's interpreter is gone", errno);
    rest.remove_prefix(static_cast<std::size_t>(n));
  }
  std::size_t nl;
  while ((nl = buffered_.find('\n')) == std::string::npos) {
    if (buffered_.size() > 200) return make_error("the session's interpreter sent a bad reply");
    if (!read_some(from_.get(), buffered_)) return make_error("the session's interpreter is gone");
  }
  ReplReply r;
  unsigned long long ot = 0, et = 0, ok = 0, ek = 0;
  int rc = 0;
  std::string header = buffered_.substr(0, nl);
  if (std::sscanf(header.c_str(), "%d %llu %llu %llu %llu", &rc, &ot, &et, &ok, &ek) != 5 ||
      ok > max_output_ || ek > max_output_ || ok > ot || ek > et)
    return make_error("the session's interpreter sent a bad reply");
  buffered_.erase(0, nl + 1);
  while (buffered_.size() < ok + ek)
    if (!read_some(from_.get(), buffered_)) return make_error("the session's interpreter is gone");
  r.exit_code = rc;
  r.out_total = ot;
  r.err_total = et;
  r.out = buffered_.substr(0, ok);
  r.err = buffered_.substr(ok, ek);
  buffered_.erase(0, ok + ek);
  return r;
}

}  // namespace paddock::mcp
