// paddock host check: the config and what install made, as they are now.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstring>
#include <fstream>
#include <sstream>

#include "host/creds.h"
#include "host/install.h"
#include "host/render.h"
#include "host/roots.h"
#include "policy/path_util.h"
#include "sys/read_file.h"

namespace paddock::host {
namespace {

std::string octal(mode_t m) {
  char b[8];
  std::snprintf(b, sizeof b, "%04o", static_cast<unsigned>(m & 07777));
  return b;
}

struct Out {
  std::vector<Finding> f;
  void ok(std::string s) { f.push_back({Finding::Level::Ok, std::move(s)}); }
  void warn(std::string s) { f.push_back({Finding::Level::Warn, std::move(s)}); }
  void fail(std::string s) { f.push_back({Finding::Level::Fail, std::move(s)}); }
};

// As USER (in a child process): can they execute PATH, or read it (a script runs through its
// interpreter when it can be read)? "" when neither.
std::string what_user_can_do(const Identity& user, const std::string& path) {
  auto r = run_as(user, [&]() -> Result<std::string> {
    std::string can;
    if (::access(path.c_str(), X_OK) == 0) can = "execute";
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd >= 0) {
      ::close(fd);
      can += can.empty() ? "read" : " and read";
    }
    return can;
  });
  return r ? *r : "(check failed: " + r.error().describe() + ")";
}

void generated_file(Out& out, const std::string& kind, const std::string& path, const std::string& want, mode_t mode) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) {
    out.fail(kind + " " + path + " is missing (paddock host install)");
    return;
  }
  auto now = sys::read_whole_file(path);
  if (!S_ISREG(st.st_mode) || !now || *now != want) {
    out.fail(kind + " " + path + " differs from what the config says (paddock host install rewrites it)");
  } else if (st.st_uid != 0 || (st.st_mode & 07777) != mode) {
    out.fail(kind + " " + path + " should be root's with mode " + octal(mode) + ", is uid " + std::to_string(st.st_uid) +
             " " + octal(st.st_mode));
  } else {
    out.ok(kind + " " + path);
  }
}

// STATE_DIR/users (root:group 0750) and each users/<name> in it (the agent's, 0700: the runner
// refuses to use one of another owner, and a user who owned theirs could plant what the agent
// then follows with its rights).
void state_parts(Out& out, const std::string& tag, const AgentEntry& a, uid_t agent_uid, gid_t agent_gid) {
  const std::string users = a.state_dir + "/users";
  struct stat st;
  if (::lstat(users.c_str(), &st) != 0) return;  // made by the first run
  if (!S_ISDIR(st.st_mode) || st.st_uid != 0 || st.st_gid != agent_gid || (st.st_mode & 07777) != 0750) {
    out.fail(tag + users + " should be a directory root:" + a.group + " 0750, is " + std::to_string(st.st_uid) + ":" +
             std::to_string(st.st_gid) + " " + octal(st.st_mode));
    return;
  }
  DIR* d = ::opendir(users.c_str());
  if (d == nullptr) return;
  bool all = true;
  while (dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    const std::string part = users + "/" + e->d_name;
    if (::lstat(part.c_str(), &st) != 0) continue;
    if (!S_ISDIR(st.st_mode) || st.st_uid != agent_uid || (st.st_mode & 07777) != 0700) {
      out.fail(tag + part + " should be a directory of " + a.user + " with mode 0700, is " +
               (S_ISDIR(st.st_mode) ? "" : "not a directory, ") + "uid " + std::to_string(st.st_uid) + " " +
               octal(st.st_mode));
      all = false;
    }
  }
  ::closedir(d);
  if (all) out.ok(tag + "each host user's part of the state is " + a.user + "'s, 0700");
}

}  // namespace

std::vector<Finding> check(const HostConfig& cfg, const UserDb& db) {
  Out out;
  out.ok("config " + cfg.file + " parses and is root's");
  struct stat st;
  if (::stat(cfg.file.c_str(), &st) == 0 && !(st.st_mode & S_IROTH))
    out.warn("config " + cfg.file + " is not readable by host users: the wrappers cannot explain a refusal before "
             "sudo, and `paddock host explain` does not work (the runner still checks everything)");
  if (auto r = check_root_owned(cfg.paddock); !r)
    out.fail("paddock binary: " + r.error().describe());
  else
    out.ok("paddock binary " + cfg.paddock + " is root's");
  bool sudo = false;
  for (const char* s : {"/run/wrappers/bin/sudo", "/usr/bin/sudo", "/bin/sudo"}) sudo = sudo || ::access(s, X_OK) == 0;
  if (!sudo) out.fail("sudo is not installed (the wrappers escalate only through it)");

  for (const AgentEntry& a : cfg.agents) {
    const std::string tag = "agent " + a.name + ": ";
    auto gid = db.group_gid(a.group);
    auto u = db.by_name(a.user);
    if (!gid) out.fail(tag + "group " + a.group + " is missing");
    if (!u) out.fail(tag + "user " + a.user + " is missing");
    if (gid && u) {
      if (u->uid == 0 || *gid == 0) out.fail(tag + "the agent user or group is root's");
      else if (u->gid != *gid) out.fail(tag + "user " + a.user + " does not have " + a.group + " as its primary group");
      else out.ok(tag + "runs as " + a.user + " (uid " + std::to_string(u->uid) + "), group " + a.group);
      for (const std::string& m : db.group_members(*gid)) {
        if (m != a.user) out.fail(tag + m + " is in the agent group " + a.group + ": they can run the real agent and read its state");
      }
    }
    if (::lstat(a.state_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      out.fail(tag + "state directory " + a.state_dir + " is missing");
    } else if (st.st_uid != 0 || !gid || st.st_gid != *gid || (st.st_mode & 07777) != 0750) {
      out.fail(tag + "state directory " + a.state_dir + " should be root:" + a.group + " 0750, is " + std::to_string(st.st_uid) +
               ":" + std::to_string(st.st_gid) + " " + octal(st.st_mode));
    } else {
      out.ok(tag + "state directory " + a.state_dir);
      if (u && gid) state_parts(out, tag, a, static_cast<uid_t>(u->uid), static_cast<gid_t>(*gid));
    }
    if (auto seen = state_dir_seen_on_disk(a, cfg, db))
      out.fail(tag + "state directory " + a.state_dir + " " + *seen + ": one host user's agent would read another's state");
    // Managed env files: root's and writable by root only (the runner refuses them otherwise).
    for (const auto& [file, where] : a.env_files) {
      if (auto r = check_root_owned(file); !r)
        out.fail(tag + "managed env file " + file + " (env_files entry at " + where + "): " + r.error().describe());
      else
        out.ok(tag + "managed env file " + file + " is root's");
    }
    generated_file(out, tag + "wrapper", wrapper_path(cfg, a), wrapper_script(cfg, a, cfg.file), 0755);
    generated_file(out, tag + "sudoers rule", sudoers_path(cfg, a), sudoers_rule(cfg, a, cfg.file), 0440);
    if (::access(sudoers_path(cfg, a).c_str(), F_OK) == 0) {
      if (auto r = run_tool({"/usr/sbin/visudo", "-c", "-q", "-f", sudoers_path(cfg, a)}); !r)
        out.fail(tag + "visudo refuses " + sudoers_path(cfg, a) + ": " + r.error().describe());
    }
    // Bypass: the real binary, run or read by each host user directly.
    char real[PATH_MAX];
    if (::realpath(a.binary.c_str(), real) == nullptr) {
      out.fail(tag + "binary " + a.binary + " is missing");
      continue;
    }
    bool hidden = true;
    for (const std::string& name : a.users) {
      auto hu = db.by_name(name);
      if (!hu) continue;
      Identity id{hu->name, static_cast<uid_t>(hu->uid), static_cast<gid_t>(hu->gid), db.groups_of(hu->name, hu->gid)};
      for (const std::string& p : {a.binary, std::string(real)}) {
        std::string can = what_user_can_do(id, p);
        if (!can.empty()) {
          out.fail(tag + name + " can " + can + " the real agent " + p + " directly, bypassing the wrapper");
          hidden = false;
        }
      }
    }
    if (hidden) out.ok(tag + "the real agent " + a.binary + " is neither executable nor readable by its host users");
    if (a.hide_dir.empty()) {
      char head[2] = {0, 0};
      std::ifstream(real, std::ios::binary).read(head, 2);
      if (head[0] == '#' && head[1] == '!')
        out.warn(tag + real + " is a script: the rest of its package may still be readable, and an interpreter "
                 "runs it from there (node .../cli.js); set hide_dir to the package's own directory");
    }
    if (u && gid) {
      Identity agent_id{a.user, static_cast<uid_t>(u->uid), static_cast<gid_t>(*gid), {static_cast<gid_t>(*gid)}};
      if (what_user_can_do(agent_id, real).find("execute") == std::string::npos)
        out.fail(tag + "the agent user " + a.user + " cannot execute " + real);
    }
    // Roots: those that resolve to nothing usable are worth knowing about.
    for (const std::string& name : a.users) {
      const UserEntry* ue = cfg.user(name);
      auto hu = db.by_name(name);
      if (ue == nullptr || !hu) continue;
      for (const ResolvedRoot& r : resolve_roots(*ue, *hu, *real_fs(), db.login_users())) {
        if (!r.note.empty()) out.warn("user " + name + ": root " + r.given + " (" + r.where + ") " + r.note);
      }
    }
  }
  return out.f;
}

}  // namespace paddock::host
