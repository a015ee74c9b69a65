#include "host/runner.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "host/creds.h"
#include "host/paths.h"
#include "host/project_mount.h"
#include "host/render.h"
#include "host/settings.h"
#include "host/sync.h"
#include "paddock/profile.h"
#include "paddock/state.h"
#include "policy/builtin_profiles.h"
#include "policy/path_util.h"
#include "sys/state_dir.h"
#include "sys/unique_fd.h"

extern char** environ;

namespace paddock::host {
namespace {

constexpr std::size_t kMaxEnvFileBytes = 1 << 20;

// Where sudo may live: NixOS's setuid wrapper first, then the usual places.
constexpr const char* kSudoPaths[] = {"/run/wrappers/bin/sudo", "/usr/bin/sudo", "/bin/sudo"};

std::string read_small_file(const std::string& path, std::size_t limit, int* err) {
  *err = 0;
  sys::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (!fd) {
    *err = errno;
    return {};
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    *err = EINVAL;
    return {};
  }
  std::string out;
  char buf[65536];
  while (true) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *err = errno;
      return {};
    }
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
    if (out.size() > limit) {
      *err = EFBIG;
      return {};
    }
  }
  return out;
}

std::vector<std::string> process_environment() {
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) out.emplace_back(*e);
  return out;
}

Result<std::string> getcwd_string() {
  std::vector<char> buf(PATH_MAX);
  while (::getcwd(buf.data(), buf.size()) == nullptr) {
    if (errno != ERANGE) return errno_error("cannot read the current directory", errno);
    buf.resize(buf.size() * 2);
  }
  return std::string(buf.data());
}

// <state_dir>/users/<user>, owned by the agent, 0700; its two parents root's. Made as root,
// one component at a time with no symlink followed.
Result<void> ensure_state_home(const AgentEntry& a, const std::string& user, uid_t agent_uid, gid_t agent_gid) {
  sys::UniqueFd dir(::open(a.state_dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!dir) return errno_error("the agent's state directory is missing (is `paddock host install` done?)", errno, a.state_dir);
  struct stat st;
  if (::fstat(dir.get(), &st) != 0 || st.st_uid != 0 || (st.st_mode & 0022))
    return make_error("must be root's and writable by root only (paddock host install makes it so)", a.state_dir);
  struct Step {
    const std::string name;
    uid_t uid;
    gid_t gid;
    mode_t mode;
  };
  const Step steps[] = {{"users", 0, agent_gid, 0750}, {user, agent_uid, agent_gid, 0700}};
  std::string at = a.state_dir;
  for (const Step& s : steps) {
    at += "/" + s.name;
    if (::mkdirat(dir.get(), s.name.c_str(), s.mode) == 0) {
      if (::fchownat(dir.get(), s.name.c_str(), s.uid, s.gid, AT_SYMLINK_NOFOLLOW) != 0)
        return errno_error("cannot set the owner", errno, at);
      if (::fchmodat(dir.get(), s.name.c_str(), s.mode, 0) != 0) return errno_error("cannot set the mode", errno, at);
    } else if (errno != EEXIST) {
      return errno_error("cannot create", errno, at);
    }
    sys::UniqueFd next(::openat(dir.get(), s.name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next) return errno_error("is not a directory (or is a symlink)", errno, at);
    if (::fstat(next.get(), &st) != 0 || st.st_uid != s.uid)
      return make_error("has the wrong owner (uid " + std::to_string(st.st_uid) + ", expected " + std::to_string(s.uid) + ")", at);
    dir = std::move(next);
  }
  return {};
}

bool is_root_owned_sudo(const std::string& exe, std::optional<uid_t> owner) {
  auto slash = exe.rfind('/');
  std::string base = slash == std::string::npos ? exe : exe.substr(slash + 1);
  return base == "sudo" && owner && *owner == 0;
}

Identity identity_of(const UserInfo& u, const UserDb& db) {
  return {u.name, static_cast<uid_t>(u.uid), static_cast<gid_t>(u.gid), db.groups_of(u.name, u.gid)};
}

}  // namespace

Result<FixedArgs> parse_fixed_argv(const std::vector<std::string>& argv, const std::string& verb) {
  const std::string usage = "usage: paddock host " + verb + " --config FILE AGENT -- [ARGS...]";
  if (argv.size() < 6 || argv[0] != "host" || argv[1] != verb || argv[2] != "--config" || argv[5] != "--")
    return make_error("refused: the arguments are not the fixed form the wrapper uses", "paddock host " + verb, usage);
  FixedArgs f;
  f.config = argv[3];
  f.agent = argv[4];
  if (!is_normal_absolute(f.config) || !sudoers_safe_path(f.config))
    return make_error("refused: the config path must be absolute, normal and plain", "paddock host " + verb, usage);
  if (f.agent.empty() || f.agent.size() > 20 ||
      !std::all_of(f.agent.begin(), f.agent.end(),
                   [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-'; }))
    return make_error("refused: \"" + f.agent + "\" is not an agent name", "paddock host " + verb, usage);
  f.args.assign(argv.begin() + 6, argv.end());
  return f;
}

CallerFacts caller_facts_from_process() {
  CallerFacts f;
  f.ruid = ::getuid();
  f.euid = ::geteuid();
  if (const char* s = std::getenv("SUDO_UID")) f.sudo_uid = s;
  if (const char* s = std::getenv("SUDO_USER")) f.sudo_user = s;
  f.ppid = ::getppid();
  const std::string proc = "/proc/" + std::to_string(f.ppid);
  char buf[PATH_MAX];
  ssize_t n = ::readlink((proc + "/exe").c_str(), buf, sizeof buf - 1);
  if (n > 0) {
    buf[n] = '\0';
    f.parent_exe = buf;
    struct stat st;
    if (::stat((proc + "/exe").c_str(), &st) == 0) f.parent_exe_owner = st.st_uid;
  }
  std::ifstream status(proc + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Uid:", 0) == 0) {
      std::istringstream is(line.substr(4));
      unsigned long r;
      if (is >> r) f.parent_ruid = static_cast<uid_t>(r);
      break;
    }
  }
  // The parent must still be the process it was: sudo waits for its command, so a parent that
  // went away (this process re-parented) has another pid now and fails the checks above.
  if (::getppid() != f.ppid) f.parent_ruid.reset();
  return f;
}

Result<UserInfo> identify_caller(const CallerFacts& f, const UserDb& db) {
  const std::string where = "paddock host runner";
  if (f.ruid != 0 || f.euid != 0)
    return make_error("refused: the runner runs only as root, started by sudo from the agent's wrapper", where,
                      "run the agent's command (e.g. `pi`) instead");
  if (!f.sudo_uid || f.sudo_uid->empty() || f.sudo_uid->size() > 10 ||
      !std::all_of(f.sudo_uid->begin(), f.sudo_uid->end(), [](char c) { return c >= '0' && c <= '9'; }))
    return make_error("refused: no valid SUDO_UID: the runner only runs when sudo starts it for a host user", where);
  unsigned long uid = std::strtoul(f.sudo_uid->c_str(), nullptr, 10);
  if (uid == 0 || uid > 0xfffffffeul)
    return make_error("refused: SUDO_UID is root's: root runs agents with `paddock run`, not through the wrapper", where);
  auto user = db.by_uid(static_cast<unsigned>(uid));
  if (!user) return make_error("refused: SUDO_UID " + *f.sudo_uid + " has no passwd entry", where);
  if (!f.sudo_user || *f.sudo_user != user->name)
    return make_error("refused: SUDO_USER does not name the user of SUDO_UID " + *f.sudo_uid, where);
  if (!is_root_owned_sudo(f.parent_exe, f.parent_exe_owner) || !f.parent_ruid || *f.parent_ruid != uid)
    return make_error("refused: the runner's parent is not sudo run by " + user->name +
                          " (parent " + std::to_string(f.ppid) + ": " + (f.parent_exe.empty() ? "?" : f.parent_exe) + ")",
                      where, "host users start the agent through its wrapper; root uses `paddock run`");
  return *user;
}

Result<Assembly> assemble(const HostConfig& cfg, const std::string& agent_name, const UserInfo& user, const UserDb& db,
                          const FsView& fs) {
  Assembly as;
  as.agent = cfg.agent(agent_name);
  if (as.agent == nullptr) return make_error("no agent \"" + agent_name + "\" in " + cfg.file);
  as.entry = cfg.user(user.name);
  if (as.entry == nullptr || std::find(as.agent->users.begin(), as.agent->users.end(), user.name) == as.agent->users.end())
    return make_error("user " + user.name + " may not use " + agent_name + " on this host", cfg.file,
                      "an administrator adds [users." + user.name + "] with their roots to " + cfg.file);
  as.user = user;
  as.roots = resolve_roots(*as.entry, user, fs, db.login_users());
  const std::string& src = as.entry->config_source.empty() ? as.agent->config_source : as.entry->config_source;
  as.config_dir = path::join(user.home, src);
  as.state_home = as.agent->state_dir + "/users/" + user.name;
  return as;
}

Result<std::vector<std::vector<EnvVar>>> managed_env_layers(const AgentEntry& a, bool require_root_owned) {
  std::vector<std::vector<EnvVar>> layers;
  std::vector<EnvVar> managed;
  for (const EnvEntry& e : a.env) managed.push_back({e.name, e.value, "managed", e.where});
  layers.push_back(std::move(managed));
  std::vector<EnvVar> files;
  for (const auto& [file, where] : a.env_files) {
    if (require_root_owned) {
      if (auto r = check_root_owned(file); !r) {
        Error e = r.error();
        e.message += " (env_files entry at " + where + ")";
        return e;
      }
    }
    int err = 0;
    std::string text = read_small_file(file, kMaxEnvFileBytes, &err);
    if (err != 0) return errno_error("cannot read the managed env file (env_files entry at " + where + ")", err, file);
    auto vars = parse_env_text(text, file, "managed file");
    if (!vars) return std::move(vars).take_error();
    files.insert(files.end(), vars->begin(), vars->end());
  }
  layers.push_back(std::move(files));
  return layers;
}

Result<Prepared> prepare_runner(const FixedArgs& args, const CallerFacts& facts) {
  auto db = real_users();
  // 1. Who: sudo's word, checked against sudo itself.
  auto user = identify_caller(facts, *db);
  if (!user) return std::move(user).take_error();
  // 2. The config, root's, read again here (the wrapper's reading counts for nothing).
  auto cfg = load_host_config(args.config, *db);
  if (!cfg) return std::move(cfg).take_error();
  auto as = assemble(*cfg, args.agent, *user, *db, *real_fs());
  if (!as) return std::move(as).take_error();
  const AgentEntry& agent = *as->agent;
  // The agent's state holds every host user's part: refused where a sandbox could see it, as it
  // is now on disk (the config's check saw only what it says).
  if (auto seen = state_dir_seen_on_disk(agent, *cfg, *db))
    return make_error("refused: the agent's state directory " + *seen + ": one host user's agent would read another's state",
                      agent.state_dir, "move it where no sandbox sees it, e.g. " + host_agent_state_dir(agent.name));
  // 3. Where: the kernel's name of the directory sudo left us in, and the directory itself held
  // open from now on, so the one checked is the one mounted.
  sys::UniqueFd cwd_fd(::open(".", O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!cwd_fd) return errno_error("cannot open the current directory", errno);
  auto cwd = getcwd_string();
  if (!cwd) return std::move(cwd).take_error();
  auto root = check_cwd(*cwd, as->roots, user->name, *real_fs());
  if (!root) return std::move(root).take_error();
  struct stat by_fd, by_name;
  if (::fstat(cwd_fd.get(), &by_fd) != 0 || ::stat(cwd->c_str(), &by_name) != 0 || by_fd.st_dev != by_name.st_dev ||
      by_fd.st_ino != by_name.st_ino)
    return make_error("the current directory changed while it was checked", *cwd);
  // 4. The agent's identity, as install made it.
  auto agent_user = db->by_name(agent.user);
  auto agent_gid = db->group_gid(agent.group);
  if (!agent_user || !agent_gid)
    return make_error("the agent user " + agent.user + " or group " + agent.group + " is missing",
                      cfg->file, "run `paddock host install --config " + cfg->file + "`");
  if (agent_user->uid == 0 || *agent_gid == 0) return make_error("the agent user must not be root", cfg->file);
  Identity agent_id{agent.user, static_cast<uid_t>(agent_user->uid), static_cast<gid_t>(*agent_gid),
                    {static_cast<gid_t>(*agent_gid)}};
  Identity user_id = identity_of(*user, *db);
  // 5. The user's config, read as the user (before any managed secret is in this process's
  // memory, which the child shares).
  const std::string config_dir = as->config_dir;
  auto bytes = run_as(user_id, [&]() -> Result<std::string> {
    auto tree = read_tree(config_dir);
    if (!tree) return std::move(tree).take_error();
    return serialize_tree(*tree);
  });
  if (!bytes) return std::move(bytes).take_error();
  auto files = parse_tree(*bytes);
  if (!files) return std::move(files).take_error();
  // 6. Env: managed layers from root's files, the runtime layer from what sudo kept.
  auto managed = managed_env_layers(agent, true);
  if (!managed) return std::move(managed).take_error();
  std::vector<EnvVar> synced;
  std::string synced_settings;
  for (const SyncedFile& f : *files) {
    if (!f.dir && f.rel == agent.user_env_file) {
      auto vars = parse_env_text(f.data, path::join(config_dir, f.rel), "synced");
      if (!vars) return std::move(vars).take_error();
      synced = std::move(*vars);
    }
    if (!f.dir && f.rel == agent.settings_file) synced_settings = f.data;
    if (f.dir && (f.rel == agent.settings_file || f.rel == agent.user_env_file))
      return make_error("is a directory, not a file", path::join(config_dir, f.rel));
  }
  if (!agent.settings.empty() || !synced_settings.empty()) {
    auto merged = merge_settings_text(synced_settings, path::join(config_dir, agent.settings_file), agent.settings);
    if (!merged) return std::move(merged).take_error();
    auto it = std::find_if(files->begin(), files->end(), [&](const SyncedFile& f) { return f.rel == agent.settings_file; });
    if (it == files->end()) {
      // Its directories first, as write_tree expects them listed.
      std::string rel = agent.settings_file;
      for (std::size_t s = rel.find('/'); s != std::string::npos; s = rel.find('/', s + 1)) {
        std::string d = rel.substr(0, s);
        if (std::none_of(files->begin(), files->end(), [&](const SyncedFile& f) { return f.rel == d; }))
          files->push_back({d, true, 0700, {}});
      }
      files->push_back({rel, false, 0600, *merged});
    } else {
      it->data = *merged;
    }
  }
  MergedEnv env = merge_env({runtime_env(process_environment(), agent.pass_env), synced, (*managed)[0], (*managed)[1]});
  // 7. The agent's state for this user, and the synced config in it (written as the agent).
  if (auto r = ensure_state_home(agent, user->name, agent_id.uid, agent_id.gid); !r) return std::move(r).take_error();
  const std::string state_home = as->state_home;
  auto wrote = run_as(agent_id, [&]() -> Result<std::string> {
    ::umask(077);  // the agent's state is its own
    if (auto w = write_tree(state_home, agent.config_source, *files); !w) return std::move(w).take_error();
    return std::string();
  });
  if (!wrote) return std::move(wrote).take_error();
  // 8. The project, idmapped, in a mount namespace of this process's own.
  auto userns = idmap_userns({static_cast<uid_t>(user->uid), static_cast<gid_t>(user->gid), agent_id.uid, agent_id.gid});
  if (!userns) return std::move(userns).take_error();
  auto tree = clone_project(cwd_fd.get(), userns->get(), *cwd);
  if (!tree) return std::move(tree).take_error();
  if (auto r = private_mount_namespace(); !r) return std::move(r).take_error();
  struct stat before_bin, before_state;
  const std::string bin_root = agent.hide_dir.empty() ? agent.binary : agent.hide_dir;
  if (::stat(agent.binary.c_str(), &before_bin) != 0) return errno_error("cannot find the agent", errno, agent.binary);
  if (::stat(state_home.c_str(), &before_state) != 0) return errno_error("cannot find", errno, state_home);
  const std::string cover = first_unsearchable_parent(*cwd, agent_id.uid, agent_id.groups);
  if (auto r = attach_project(tree->get(), *cwd, cover); !r) return std::move(r).take_error();
  struct stat after;
  if (::stat(agent.binary.c_str(), &after) != 0 || after.st_ino != before_bin.st_ino || after.st_dev != before_bin.st_dev ||
      ::stat(state_home.c_str(), &after) != 0 || after.st_ino != before_state.st_ino)
    return make_error("the agent or its state lies under " + cover + ", which the project's mount covers", *cwd);
  // 9. The agent user, for good.
  // The runner's own environment is what sudo kept: nothing of it reaches the agent (the layers
  // above are all it gets), and nothing of it steers paddock itself (PADDOCK_*, XDG_*). A profile
  // named by a built-in's `extends` is looked up under XDG_CONFIG_HOME: a directory in the root's
  // state dir that does not exist and that the agent cannot create.
  const std::string no_profiles = agent.state_dir + "/.no-user-profiles";
  ::clearenv();
  ::setenv("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", 1);
  ::setenv("XDG_CONFIG_HOME", no_profiles.c_str(), 1);
  // Nothing of root's kept open: the idmapping, the detached tree, the directory handle.
  userns->reset();
  tree->reset();
  cwd_fd.reset();
  if (auto r = become(agent_id); !r) return std::move(r).take_error();
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errno_error("no_new_privs", errno);
  // Changing ids made this process non-dumpable, which leaves its /proc files root's: the engine
  // could not write its sandbox's uid_map. It holds nothing of root's any more (above), so the
  // agent user may own it like any process of its own.
  if (::prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) != 0) return errno_error("dumpable", errno);
  if (::chdir(cwd->c_str()) != 0) return errno_error("cannot enter the project", errno, *cwd);
  // 10. The sandbox's policy, built as the agent user on what it now sees.
  HostContext ctx;
  ctx.cwd = *cwd;
  ctx.home = state_home;
  ctx.passwd_home = user->home;  // the user's secrets stay on the sensitive list
  ctx.user = agent.user;
  ctx.uid = agent_id.uid;
  ctx.gid = agent_id.gid;
  // The agent user's own paddock state, in the HOME it gets (its environment was cleared above).
  ctx.state = state_layout({agent_id.uid, state_home, {}, {}});
  ctx.fs = real_fs();
  PolicyBuilder b(ctx);
  ProfileSource src;
  if (!agent.profile.empty() && agent.profile[0] == '/') {
    if (auto r = check_root_owned(agent.profile); !r) return std::move(r).take_error();
    int err = 0;
    src = {agent.profile, agent.profile, read_small_file(agent.profile, 1 << 20, &err)};
    if (err != 0) return errno_error("cannot read the profile", err, agent.profile);
    b.profile_file(agent.profile, "profile in " + cfg->file);
  } else {
    const BuiltinProfile* bp = find_builtin_profile(agent.profile);
    if (bp == nullptr) return make_error("no built-in profile \"" + agent.profile + "\"", cfg->file);
    src = {std::string(bp->name), "<built-in:" + std::string(bp->name) + ">", std::string(bp->toml)};
  }
  if (auto r = apply_profile(src, b, ctx); !r) return std::move(r).take_error();
  // Every other host user's part of the agent's state stays hidden, wherever a rule (a profile's,
  // the system's) would show it; this user's own part is bound over the mask.
  b.hide(agent.state_dir, "paddock host: the state of " + agent.name + " for every host user (each run sees its own user's only)");
  b.allow(state_home, Access::ReadWrite, {Origin::Kind::Flag, "paddock host: the agent's state for " + user->name});
  b.allow(bin_root, Access::Read, {Origin::Kind::Flag, "paddock host: the agent (" + agent.binary + ")"});
  if (agent.network == "off") b.network(NetMode::Off);
  if (agent.network == "on") b.network(NetMode::Host);
  for (const EnvVar& v : env.effective) b.set_env(v.name, v.value);
  for (const auto& d : b.dirs_to_create()) {
    if (auto made = sys::make_dir_under(state_home, d.path, 0700); !made) return std::move(made).take_error();
  }
  for (const auto& f : b.files_to_create()) {
    if (auto made = sys::make_file_under(state_home, f.path, f.content, 0600); !made) return std::move(made).take_error();
  }
  auto policy = b.build();
  if (!policy) return std::move(policy).take_error();
  Prepared p;
  p.policy = std::move(*policy);
  p.options.argv.push_back(agent.binary);
  p.options.argv.insert(p.options.argv.end(), args.args.begin(), args.args.end());
  p.options.host_env = std::vector<std::string>{};  // only what the layers set
  p.agent = agent.name;
  p.user = user->name;
  return p;
}

Result<std::vector<std::string>> wrapper_command(const FixedArgs& args) {
  const uid_t uid = ::getuid();
  if (uid == 0)
    return make_error("root does not go through the wrapper: run the agent with `paddock run` (or as a host user)");
  auto db = real_users();
  auto me = db->by_uid(uid);
  if (!me) return make_error("you (uid " + std::to_string(uid) + ") have no passwd entry");
  // The config is normally world-readable; when it is not, the runner's checks are the only ones.
  auto cfg = load_host_config(args.config, *db);
  if (cfg) {
    auto as = assemble(*cfg, args.agent, *me, *db, *real_fs());
    if (!as) return std::move(as).take_error();
    auto cwd = getcwd_string();
    if (!cwd) return std::move(cwd).take_error();
    auto root = check_cwd(*cwd, as->roots, me->name, *real_fs());
    if (!root) return std::move(root).take_error();
  } else if (cfg.error().sys_errno != EACCES) {
    return std::move(cfg).take_error();
  }
  std::string sudo;
  for (const char* s : kSudoPaths) {
    if (::access(s, X_OK) == 0) {
      sudo = s;
      break;
    }
  }
  if (sudo.empty()) return make_error("sudo is not installed: the wrapper needs it to start the agent");
  std::string paddock;
  if (cfg) {
    paddock = cfg->paddock;
  } else {
    char self[PATH_MAX];
    ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) return errno_error("cannot find paddock itself", errno, "/proc/self/exe");
    self[n] = '\0';
    paddock = self;
  }
  std::vector<std::string> argv = {sudo, "-n", "--", paddock};
  argv.insert(argv.end(), {"host", "runner", "--config", args.config, args.agent, "--"});
  argv.insert(argv.end(), args.args.begin(), args.args.end());
  return argv;
}

}  // namespace paddock::host
