// Names of the policy's enums, Policy::find_rule, absolute_path and HostContext::from_process.
#include "paddock/policy.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>
#include <vector>

#include "policy/passwd_entry.h"
#include "policy/path_util.h"

namespace paddock {

std::string_view to_string(Access a) {
  switch (a) {
    case Access::None: return "none";
    case Access::Read: return "read";
    case Access::Write: return "write";
    case Access::ReadWrite: return "read+write";
  }
  return "none";
}

Result<Access> parse_access(std::string_view s) {
  if (s == "none") return Access::None;
  if (s == "read" || s == "ro") return Access::Read;
  if (s == "write" || s == "wo") return Access::Write;
  if (s == "read+write" || s == "rw") return Access::ReadWrite;
  return make_error("unknown access \"" + std::string(s) + "\"", {},
                    "use one of read, write, read+write, none");
}

std::string_view to_string(Op op) {
  switch (op) {
    case Op::Read: return "read";
    case Op::Write: return "write";
    case Op::Exec: return "exec";
  }
  return "read";
}

Result<Op> parse_op(std::string_view s) {
  if (s == "read") return Op::Read;
  if (s == "write") return Op::Write;
  if (s == "exec" || s == "execute") return Op::Exec;
  return make_error("unknown operation \"" + std::string(s) + "\"", {},
                    "use one of read, write, exec");
}

std::string_view to_string(NetMode m) {
  switch (m) {
    case NetMode::Off: return "off";
    case NetMode::Host: return "host";
    case NetMode::Filtered: return "filtered";
  }
  return "off";
}

const PathRule* Policy::find_rule(std::string_view p) const {
  // Later duplicates replace earlier ones in the builder, but search from the back anyway so a
  // hand-assembled policy answers like the builder would.
  for (auto it = paths.rbegin(); it != paths.rend(); ++it) {
    if (it->path == p) return &*it;
  }
  return nullptr;
}

std::string absolute_path(std::string_view given, const HostContext& ctx) {
  if (given == "~") return path::normalize(ctx.home);
  if (given.size() >= 2 && given[0] == '~' && given[1] == '/') {
    return path::normalize(path::join(ctx.home, given.substr(2)));
  }
  if (!given.empty() && given[0] == '/') return path::normalize(given);
  return path::normalize(path::join(ctx.cwd, given));
}

Result<HostContext> HostContext::from_process() {
  HostContext ctx;
  std::vector<char> buf(4096);
  while (::getcwd(buf.data(), buf.size()) == nullptr) {
    if (errno != ERANGE) return errno_error("cannot read the current directory", errno, "getcwd");
    buf.resize(buf.size() * 2);
  }
  ctx.cwd = buf.data();
  ctx.uid = ::getuid();
  ctx.gid = ::getgid();

  // The passwd entry is the source of the user name and of the user's real home: the fallback
  // for HOME, and when $HOME points elsewhere, a second home whose secrets stay hidden. So it
  // is read on every run (two small files in the usual set-up, see passwd_entry.h); trusting
  // $HOME alone would let `HOME=/tmp/x paddock run --read ~u` expose ~u/.ssh.
  std::string pw_name, pw_dir;
  if (auto pw = lookup_passwd(ctx.uid)) {
    pw_name = std::move(pw->name);
    pw_dir = std::move(pw->dir);
  }

  const char* home = std::getenv("HOME");
  if (home != nullptr && home[0] == '/') {
    ctx.home = path::normalize(home);
    if (!pw_dir.empty() && pw_dir[0] == '/' && path::normalize(pw_dir) != ctx.home) {
      ctx.passwd_home = path::normalize(pw_dir);
    }
  } else if (!pw_dir.empty() && pw_dir[0] == '/') {
    ctx.home = path::normalize(pw_dir);
  } else {
    return make_error("cannot find the home directory", "HOME",
                      "set HOME to an absolute path");
  }

  if (!pw_name.empty()) {
    ctx.user = pw_name;
  } else if (const char* u = std::getenv("USER"); u != nullptr && u[0] != '\0') {
    ctx.user = u;
  } else {
    ctx.user = std::to_string(ctx.uid);
  }
  ctx.state = state_layout(StateInputs::from_environment(ctx.uid, ctx.home));
  ctx.fs = real_fs();
  return ctx;
}

}  // namespace paddock
