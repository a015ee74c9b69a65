#include "host/install.h"

#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>
#include <sstream>

#include "host/creds.h"
#include "host/render.h"
#include "host/roots.h"
#include "policy/path_util.h"
#include "sys/unique_fd.h"

extern char** environ;

namespace paddock::host {
namespace {

constexpr const char* kManifestVersion = "paddock.host-manifest/1";
constexpr const char* kGroupadd = "/usr/sbin/groupadd";
constexpr const char* kUseradd = "/usr/sbin/useradd";
constexpr const char* kUserdel = "/usr/sbin/userdel";
constexpr const char* kGroupdel = "/usr/sbin/groupdel";
constexpr const char* kVisudo = "/usr/sbin/visudo";
constexpr const char* kNologin = "/usr/sbin/nologin";

std::string octal(mode_t m) {
  char b[8];
  std::snprintf(b, sizeof b, "%04o", static_cast<unsigned>(m & 07777));
  return b;
}

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Writes CONTENT to PATH through a temporary name beside it that contains a '.' (sudo's
// @includedir skips such names), owned by root with MODE; VALIDATE (if given) runs on the
// temporary file before it is renamed into place.
Result<void> put_file(const std::string& path, const std::string& content, mode_t mode,
                      const std::function<Result<void>(const std::string&)>& validate = {}) {
  const std::string dir = path::parent(path);
  const std::string tmp = path::join(dir, "." + path.substr(dir.size() == 1 ? 1 : dir.size() + 1) + ".paddock-tmp");
  ::unlink(tmp.c_str());
  sys::UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd) return errno_error("cannot create", errno, tmp);
  auto fail = [&](Error e) {
    ::unlink(tmp.c_str());
    return e;
  };
  if (::write(fd.get(), content.data(), content.size()) != static_cast<ssize_t>(content.size()) ||
      ::fchown(fd.get(), 0, 0) != 0 || ::fchmod(fd.get(), mode) != 0 || ::fsync(fd.get()) != 0)
    return fail(errno_error("cannot write", errno, tmp));
  fd.reset();
  if (validate) {
    if (auto r = validate(tmp); !r) return fail(r.error());
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) return fail(errno_error("cannot rename into place", errno, path));
  return {};
}

struct Manifest {
  std::string path;
  nlohmann::json doc;

  static Result<Manifest> load(const std::string& path, bool must_exist) {
    Manifest m{path, {{"version", kManifestVersion}, {"entries", nlohmann::json::array()}}};
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0) {
      if (errno == ENOENT && !must_exist) return m;
      return errno_error("cannot read the install manifest", errno, path);
    }
    if (auto r = check_root_owned(path); !r) return std::move(r).take_error();
    auto text = read_file(path);
    if (!text) return errno_error("cannot read the install manifest", errno, path);
    try {
      m.doc = nlohmann::json::parse(*text);
    } catch (const nlohmann::json::exception& e) {
      return make_error(std::string("is not a valid manifest: ") + e.what(), path);
    }
    if (!m.doc.is_object() || m.doc.value("version", "") != kManifestVersion || !m.doc["entries"].is_array())
      return make_error("is not a paddock host manifest (" + std::string(kManifestVersion) + ")", path);
    return m;
  }
  nlohmann::json& entries() { return doc["entries"]; }
  const nlohmann::json* find(const std::string& kind, const std::string& key) const {
    for (const auto& e : doc["entries"])
      if (e.value("kind", "") == kind && (e.value("path", "") == key || e.value("name", "") == key)) return &e;
    return nullptr;
  }
  void add(nlohmann::json e) {
    for (auto& old : entries()) {
      if (old.value("kind", "") == e.value("kind", "") && old.value("path", "-") == e.value("path", "-") &&
          old.value("name", "-") == e.value("name", "-")) {
        // A mode entry keeps what was there before the first install.
        if (e.value("kind", "") == "mode") {
          for (const char* k : {"set_uid", "set_gid", "set_mode"}) old[k] = e[k];
          return;
        }
        old = std::move(e);
        return;
      }
    }
    entries().push_back(std::move(e));
  }
  Result<void> save() const {
    return put_file(path, doc.dump(2) + "\n", 0600);
  }
};

class Installer {
 public:
  Installer(const HostConfig& cfg, const InstallOptions& opt) : cfg_(cfg), opt_(opt) {}

  Result<void> run() {
    if (!opt_.dry_run && ::geteuid() != 0) return make_error("paddock host install needs root");
    if (auto r = check_root_owned(cfg_.paddock); !r) {
      Error e = r.error();
      e.message = "the paddock binary named in [host] paddock " + e.message;
      return e;
    }
    auto m = Manifest::load(cfg_.manifest, false);
    if (!m) return std::move(m).take_error();
    m_ = std::move(*m);
    m_.doc["config"] = cfg_.file;
    if (auto r = dirs_for(path::parent(cfg_.manifest), 0755); !r) return r;
    for (const AgentEntry& a : cfg_.agents) {
      if (auto r = agent(a); !r) return r;
    }
    if (changes_ == 0) say("nothing to do: everything is installed as " + cfg_.file + " says");
    return save();
  }

 private:
  void say(const std::string& s) { std::fprintf(opt_.out, "%s%s\n", opt_.dry_run ? "would: " : "", s.c_str()); }
  Result<void> save() { return opt_.dry_run ? Result<void>() : m_.save(); }
  Result<void> record(nlohmann::json e) {
    ++changes_;
    m_.add(std::move(e));
    return save();
  }

  // Missing directories down to DIR, root's, each recorded.
  Result<void> dirs_for(const std::string& dir, mode_t mode) {
    std::vector<std::string> missing;
    for (std::string d = dir; d != "/"; d = path::parent(d)) {
      struct stat st;
      if (::lstat(d.c_str(), &st) == 0) {
        if (!S_ISDIR(st.st_mode)) return make_error("exists and is not a directory", d);
        break;
      }
      missing.push_back(d);
    }
    std::reverse(missing.begin(), missing.end());
    for (const std::string& d : missing) {
      say("+ directory " + d + " (root, " + octal(mode) + ")");
      if (opt_.dry_run) {
        ++changes_;
        continue;
      }
      if (::mkdir(d.c_str(), mode) != 0) return errno_error("cannot create", errno, d);
      if (::chmod(d.c_str(), mode) != 0) return errno_error("cannot set the mode", errno, d);
      if (auto r = record({{"kind", "dir"}, {"path", d}}); !r) return r;
    }
    return {};
  }

  Result<void> agent(const AgentEntry& a) {
    auto db = real_users();
    // The group and the user.
    if (!db->group_gid(a.group)) {
      say("+ group " + a.group + " (groupadd --system)");
      if (!opt_.dry_run) {
        if (auto r = run_tool({kGroupadd, "--system", a.group}); !r) return r;
        if (auto r = record({{"kind", "group"}, {"name", a.group}}); !r) return r;
      } else {
        ++changes_;
      }
    }
    if (auto u = db->by_name(a.user)) {
      if (u->uid == 0) return make_error("the agent user " + a.user + " is root", cfg_.file);
      auto gid = db->group_gid(a.group);
      if (gid && u->gid != *gid)
        return make_error("the existing user " + a.user + " does not have " + a.group + " as its primary group",
                          cfg_.file, "choose another user name or group, or fix the user");
    } else {
      say("+ user " + a.user + " (useradd --system, group " + a.group + ", home " + a.state_dir + ", no login)");
      if (!opt_.dry_run) {
        if (auto r = run_tool({kUseradd, "--system", "--gid", a.group, "--home-dir", a.state_dir, "--no-create-home",
                               "--shell", kNologin, "--comment", "paddock host agent " + a.name, a.user});
            !r)
          return r;
        if (auto r = record({{"kind", "user"}, {"name", a.user}}); !r) return r;
      } else {
        ++changes_;
      }
    }
    auto gid = db->group_gid(a.group);
    const unsigned agent_gid = gid ? *gid : 0;
    // The state directory: root:<group> 0750, and users/ in it.
    if (auto r = dirs_for(path::parent(a.state_dir), 0755); !r) return r;
    for (const std::string& d : {a.state_dir, a.state_dir + "/users"}) {
      struct stat st;
      if (::lstat(d.c_str(), &st) != 0) {
        say("+ directory " + d + " (root:" + a.group + ", 0750)");
        if (opt_.dry_run) {
          ++changes_;
          continue;
        }
        if (::mkdir(d.c_str(), 0750) != 0) return errno_error("cannot create", errno, d);
        if (::chown(d.c_str(), 0, agent_gid) != 0 || ::chmod(d.c_str(), 0750) != 0)
          return errno_error("cannot set the owner and mode", errno, d);
        if (d == a.state_dir) {
          if (auto r = record({{"kind", "state_dir"}, {"path", d}}); !r) return r;
        }
      } else if (!S_ISDIR(st.st_mode)) {
        return make_error("exists and is not a directory", d);
      } else if (st.st_uid != 0 || st.st_gid != agent_gid || (st.st_mode & 07777) != 0750) {
        if (auto r = set_mode(d, 0, agent_gid, 0750, st); !r) return r;
      }
    }
    // The real binary (or its directory): root:<group> 0750, so host users cannot run it.
    const std::string hide = a.hide_dir.empty() ? a.binary : a.hide_dir;
    char real[PATH_MAX];
    if (::realpath(hide.c_str(), real) == nullptr) return errno_error("cannot find the agent", errno, hide);
    struct stat st;
    if (::stat(real, &st) != 0) return errno_error("cannot find the agent", errno, real);
    if (a.hide_dir.empty() && !S_ISREG(st.st_mode)) return make_error("the agent's binary is not a regular file", real);
    if (st.st_uid != 0 || st.st_gid != agent_gid || (st.st_mode & 07777) != 0750) {
      if (auto r = set_mode(real, 0, agent_gid, 0750, st); !r) return r;
    }
    // The wrapper and the sudoers rule.
    if (auto r = generated(wrapper_path(cfg_, a), wrapper_script(cfg_, a, cfg_.file), 0755, "wrapper", {}); !r) return r;
    if (auto r = generated(sudoers_path(cfg_, a), sudoers_rule(cfg_, a, cfg_.file), 0440, "sudoers",
                           [](const std::string& tmp) { return run_tool({kVisudo, "-c", "-q", "-f", tmp}); });
        !r)
      return r;
    return {};
  }

  Result<void> set_mode(const std::string& path, uid_t uid, gid_t gid, mode_t mode, const struct stat& was) {
    say("+ owner and mode of " + path + ": root:" + std::to_string(gid) + " " + octal(mode) + " (was " +
        std::to_string(was.st_uid) + ":" + std::to_string(was.st_gid) + " " + octal(was.st_mode) + ")");
    if (opt_.dry_run) {
      ++changes_;
      return {};
    }
    if (::chown(path.c_str(), uid, gid) != 0 || ::chmod(path.c_str(), mode) != 0)
      return errno_error("cannot set the owner and mode", errno, path);
    return record({{"kind", "mode"},
                   {"path", path},
                   {"uid", was.st_uid},
                   {"gid", was.st_gid},
                   {"mode", was.st_mode & 07777},
                   {"set_uid", uid},
                   {"set_gid", gid},
                   {"set_mode", mode}});
  }

  Result<void> generated(const std::string& path, const std::string& content, mode_t mode, const std::string& kind,
                         const std::function<Result<void>(const std::string&)>& validate) {
    auto now = read_file(path);
    struct stat st;
    const bool exists = ::lstat(path.c_str(), &st) == 0;
    if (exists && now && *now == content && S_ISREG(st.st_mode) && st.st_uid == 0 && (st.st_mode & 07777) == mode) {
      if (m_.find(kind, path) == nullptr) {  // exactly ours (a manifest lost): ours again
        if (!opt_.dry_run) return record({{"kind", kind}, {"path", path}, {"content", content}});
      }
      return {};
    }
    if (exists && m_.find(kind, path) == nullptr)
      return make_error("exists and was not written by paddock host install: remove or rename it first (or choose another " +
                            std::string(kind == "wrapper" ? "command" : "agent name") + ")",
                        path);
    say("+ " + kind + " " + path + (exists ? " (updated)" : ""));
    if (opt_.dry_run) {
      ++changes_;
      std::fprintf(opt_.out, "%s", indent(content).c_str());
      return {};
    }
    if (auto r = put_file(path, content, mode, validate); !r) return r;
    if (kind == "sudoers") {
      // The whole of sudo's configuration must still parse, or nobody could use sudo.
      if (auto r = run_tool({kVisudo, "-c", "-q"}); !r) {
        ::unlink(path.c_str());
        Error e = r.error();
        e.message = "sudo's configuration no longer parsed with the new rule, which was removed again: " + e.message;
        return e;
      }
    }
    return record({{"kind", kind}, {"path", path}, {"content", content}});
  }

  static std::string indent(const std::string& text) {
    std::string out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) out += "      | " + line + "\n";
    return out;
  }

  const HostConfig& cfg_;
  const InstallOptions& opt_;
  Manifest m_;
  int changes_ = 0;
};

bool is_empty_dir(const std::string& d) {
  DIR* dir = ::opendir(d.c_str());
  if (dir == nullptr) return false;
  bool empty = true;
  while (dirent* e = ::readdir(dir)) {
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) {
      empty = false;
      break;
    }
  }
  ::closedir(dir);
  return empty;
}

Result<void> remove_tree(const std::string& path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) return errno == ENOENT ? Result<void>() : errno_error("cannot remove", errno, path);
  if (S_ISDIR(st.st_mode)) {
    DIR* dir = ::opendir(path.c_str());
    if (dir == nullptr) return errno_error("cannot list", errno, path);
    std::vector<std::string> names;
    while (dirent* e = ::readdir(dir))
      if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) names.emplace_back(e->d_name);
    ::closedir(dir);
    for (const auto& n : names)
      if (auto r = remove_tree(path + "/" + n); !r) return r;
    if (::rmdir(path.c_str()) != 0) return errno_error("cannot remove", errno, path);
    return {};
  }
  if (::unlink(path.c_str()) != 0) return errno_error("cannot remove", errno, path);
  return {};
}

}  // namespace

Result<void> run_tool(const std::vector<std::string>& argv) {
  int err_pipe[2];
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) return errno_error("pipe", errno);
  sys::UniqueFd rd(err_pipe[0]), wr(err_pipe[1]);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, wr.get(), 2);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const char* env[] = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C", nullptr};
  pid_t pid;
  int rc = posix_spawn(&pid, argv[0].c_str(), &fa, nullptr, args.data(), const_cast<char**>(env));
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return errno_error("cannot run", rc, argv[0]);
  wr.reset();
  std::string err;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(rd.get(), buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
    if (n > 0 && err.size() < 65536) err.append(buf, static_cast<std::size_t>(n));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    while (!err.empty() && err.back() == '\n') err.pop_back();
    std::string cmd;
    for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
    return make_error("failed" + (err.empty() ? std::string() : ": " + err), cmd);
  }
  return {};
}

Result<void> install(const HostConfig& cfg, const InstallOptions& opt) { return Installer(cfg, opt).run(); }

Result<void> uninstall(const std::string& manifest_path, const UninstallOptions& opt) {
  if (!opt.dry_run && ::geteuid() != 0) return make_error("paddock host uninstall needs root");
  auto m = Manifest::load(manifest_path, true);
  if (!m) return std::move(m).take_error();
  auto say = [&](const std::string& s) { std::fprintf(opt.out, "%s%s\n", opt.dry_run ? "would: " : "", s.c_str()); };
  std::vector<nlohmann::json> entries(m->entries().begin(), m->entries().end());
  bool manifest_gone = false;
  auto remove_manifest = [&]() -> Result<void> {
    if (manifest_gone) return {};
    say("- manifest " + manifest_path);
    manifest_gone = true;
    if (!opt.dry_run && ::unlink(manifest_path.c_str()) != 0) return errno_error("cannot remove", errno, manifest_path);
    return {};
  };
  std::vector<std::string> kept;
  while (!entries.empty()) {
    const nlohmann::json e = entries.back();
    const std::string kind = e.value("kind", "");
    const std::string path = e.value("path", "");
    const std::string name = e.value("name", "");
    Result<void> r;
    if (kind == "wrapper" || kind == "sudoers") {
      auto now = read_file(path);
      if (!now) {
        say("  " + kind + " " + path + " is gone already");
      } else if (*now != e.value("content", "")) {
        say("  " + kind + " " + path + " was changed since install: left in place");
        kept.push_back(path);
      } else {
        say("- " + kind + " " + path);
        if (!opt.dry_run && ::unlink(path.c_str()) != 0) r = errno_error("cannot remove", errno, path);
      }
    } else if (kind == "mode") {
      struct stat st;
      if (::stat(path.c_str(), &st) != 0) {
        say("  " + path + " is gone: its owner and mode are not restored");
      } else if (st.st_uid != e.value("set_uid", 0u) || st.st_gid != e.value("set_gid", 0u) ||
                 (st.st_mode & 07777) != e.value("set_mode", 0u)) {
        say("  owner or mode of " + path + " changed since install: left as they are");
        kept.push_back(path);
      } else {
        const mode_t mode = e.value("mode", 0755u);
        say("- owner and mode of " + path + " back to " + std::to_string(e.value("uid", 0u)) + ":" +
            std::to_string(e.value("gid", 0u)) + " " + octal(mode));
        if (!opt.dry_run && (::chown(path.c_str(), e.value("uid", 0u), e.value("gid", 0u)) != 0 ||
                             ::chmod(path.c_str(), mode) != 0))
          r = errno_error("cannot restore the owner and mode", errno, path);
      }
    } else if (kind == "state_dir") {
      if (opt.keep_state) {
        say("  state directory " + path + " kept (--keep-state)");
        kept.push_back(path);
      } else {
        say("- state directory " + path + " and everything in it");
        if (!opt.dry_run) r = remove_tree(path);
      }
    } else if (kind == "dir") {
      if (path::is_strictly_under(manifest_path, path)) r = remove_manifest();
      if (r) {
        if (opt.dry_run || is_empty_dir(path)) {
          say("- directory " + path);
          if (!opt.dry_run && ::rmdir(path.c_str()) != 0) r = errno_error("cannot remove", errno, path);
        } else {
          say("  directory " + path + " is not empty: left in place");
          kept.push_back(path);
        }
      }
    } else if (kind == "user") {
      say("- user " + name);
      if (!opt.dry_run && real_users()->by_name(name)) r = run_tool({kUserdel, name});
    } else if (kind == "group") {
      say("- group " + name);
      if (!opt.dry_run && real_users()->group_gid(name)) r = run_tool({kGroupdel, name});
    } else {
      say("  unknown manifest entry " + e.dump() + ": skipped");
    }
    if (!r) return r;
    entries.pop_back();
    if (!opt.dry_run && !manifest_gone) {
      m->entries() = nlohmann::json(entries);
      if (auto s = m->save(); !s) return s;
    }
  }
  if (auto r = remove_manifest(); !r) return r;
  if (!kept.empty()) say("left in place: " + std::to_string(kept.size()) + " item(s) named above");
  return {};
}

}  // namespace paddock::host
