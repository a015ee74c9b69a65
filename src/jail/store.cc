// The jail store: roots, runtime.json, the lock, removal.
#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <limits.h>

#include <algorithm>
#include <functional>
#include <cerrno>
#include <cstdlib>
#include <ctime>

#include "jail/process.h"
#include "jail/tree.h"
#include "paddock/jail.h"
#include "paddock/state.h"
#include "sys/anchored_dir.h"
#include "sys/unique_fd.h"

namespace paddock::jail {
namespace {

const char* const kSubdirs[] = {"home", "workspaces", "runtime", "tmp"};

Result<void> check_fd(int fd, const std::string& dir, uid_t uid, std::string_view what) {
  struct stat st;
  if (fstat(fd, &st) != 0) return errno_error("cannot stat", errno, dir);
  if (!S_ISDIR(st.st_mode)) return make_error(std::string(what) + " is not a directory", dir);
  if (st.st_uid != uid)
    return make_error(std::string(what) + " is owned by uid " + std::to_string(st.st_uid) + ", not by you (uid " +
                          std::to_string(uid) + ")",
                      dir, "refusing a root someone else controls; remove it or fix its owner");
  if (st.st_mode & 022) {
    char mode[8];
    std::snprintf(mode, sizeof(mode), "%04o", st.st_mode & 07777);
    return make_error(std::string(what) + " can be written by other users (mode " + mode + ")", dir,
                      "refusing a root another user can write; chmod go-w it if you trust its contents");
  }
  return {};
}

Result<sys::UniqueFd> open_checked(int parent, const std::string& name, const std::string& path, std::string_view what) {
  int fd = openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ELOOP || errno == ENOTDIR) return make_error(std::string(what) + " is a symlink or not a directory", path);
    return errno_error("cannot open " + std::string(what), errno, path);
  }
  sys::UniqueFd f(fd);
  if (auto c = check_fd(f.get(), path, geteuid(), what); !c) return std::move(c).take_error();
  return f;
}

Result<std::string> read_small_file(int dirfd, const char* name, const std::string& where) {
  int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return errno_error("cannot open", errno, where);
  sys::UniqueFd f(fd);
  std::string data;
  char buf[8192];
  ssize_t n;
  while ((n = read(f.get(), buf, sizeof(buf))) > 0) {
    data.append(buf, static_cast<std::size_t>(n));
    if (data.size() > (1u << 20)) return make_error("file larger than 1 MiB", where);
  }
  if (n < 0) return errno_error("cannot read", errno, where);
  return data;
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

}  // namespace

Lock& Lock::operator=(Lock&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

Lock::~Lock() {
  if (fd_ >= 0) ::close(fd_);
}

void Lock::touch() const {
  if (fd_ >= 0) (void)futimens(fd_, nullptr);
}

Result<void> check_root(const std::string& dir, uid_t uid, std::string_view what) {
  auto fd = sys::open_dir_no_symlinks(dir);
  if (!fd) return std::move(fd).take_error();
  return check_fd(fd->get(), dir, uid, what);
}

Result<std::string> Store::default_dir() {
  auto state = state_layout_of_process();
  if (!state) return std::move(state).take_error();
  return state->jails_dir;
}

Result<Store> Store::open_default() {
  auto dir = default_dir();
  if (!dir) return std::move(dir).take_error();
  return open(*dir);
}

Result<Store> Store::open(std::string dir) {
  if (dir.empty() || dir[0] != '/') return make_error("the jail store must be an absolute path", dir);
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  // Created as needed: the parents with 0755 (they are the user's, like ~/.local/state), the
  // paddock directory and the store itself 0700.
  std::string parent = dir.substr(0, dir.rfind('/'));
  if (parent.empty()) parent = "/";
  for (std::size_t i = 1; i <= parent.size(); ++i) {
    if (i == parent.size() || parent[i] == '/') {
      std::string p = parent.substr(0, i);
      const bool ours = p.size() >= 8 && p.compare(p.size() - 8, 8, "/paddock") == 0;
      if (mkdir(p.c_str(), ours ? 0700 : 0755) != 0 && errno != EEXIST) return errno_error("cannot create", errno, p);
    }
  }
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return errno_error("cannot create the jail store", errno, dir);
  if (auto c = check_root(dir, geteuid(), "the jail store"); !c) return std::move(c).take_error();
  return Store(std::move(dir));
}

Result<Runtime> Store::load(std::string_view name) const {
  if (auto n = check_name(name); !n) return std::move(n).take_error();
  auto store = sys::open_dir_no_symlinks(dir_);
  if (!store) return std::move(store).take_error();
  const std::string root = root_of(name);
  int fd = openat(store->get(), std::string(name).c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT)
    return make_error("no jail named " + std::string(name), root, "paddock jail list shows the jails there are");
  if (fd >= 0) ::close(fd);
  auto rootfd = open_checked(store->get(), std::string(name), root, "the jail root");
  if (!rootfd) return std::move(rootfd).take_error();
  auto rt = open_checked(rootfd->get(), "runtime", root + "/runtime", "the jail's runtime directory");
  if (!rt) return std::move(rt).take_error();
  const std::string file = root + "/runtime/runtime.json";
  auto text = read_small_file(rt->get(), "runtime.json", file);
  if (!text) {
    Error e = std::move(text).take_error();
    e.hint = "paddock jail rm " + std::string(name) + " removes the jail";
    return e;
  }
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded())
    return make_error("damaged runtime.json: not valid JSON", file,
                      "paddock jail rm " + std::string(name) + " removes the jail");
  auto r = runtime_from_json(j, file);
  if (!r) {
    Error e = std::move(r).take_error();
    if (e.hint.find("jail rm") != std::string::npos) e.hint = "paddock jail rm " + std::string(name) + " removes the jail";
    return e;
  }
  // The last exec touched the lock (Lock::touch).
  struct stat lock_st;
  if (fstatat(rt->get(), "lock", &lock_st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(lock_st.st_mode) &&
      lock_st.st_mtim.tv_sec > r->last_used)
    r->last_used = lock_st.st_mtim.tv_sec;
  if (r->name != name || r->jail_root != root)
    return make_error("damaged runtime.json: it describes jail \"" + r->name + "\" at " + r->jail_root, file,
                      "paddock jail rm " + std::string(name) + " removes the jail");
  // Every root a run can write is checked before paddock uses it: a run can chmod its HOME or
  // its workspace, and a root other users can write is refused.
  for (const char* sub : kSubdirs) {
    auto s = open_checked(rootfd->get(), sub, root + "/" + sub, "the jail's " + std::string(sub) + " directory");
    if (!s) return std::move(s).take_error();
  }
  if (r->workspace_mode != WorkspaceMode::Host) {
    if (auto c = check_root(r->workspace_root, geteuid(), "the jail's workspace"); !c) return std::move(c).take_error();
  }
  return r;
}

Result<std::vector<Runtime>> Store::list() const {
  auto store = sys::open_dir_no_symlinks(dir_);
  if (!store) return std::move(store).take_error();
  std::vector<std::string> names;
  {
    int fd = openat(store->get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return errno_error("cannot open the jail store", errno, dir_);
    DIR* d = fdopendir(fd);
    if (!d) {
      ::close(fd);
      return errno_error("cannot read the jail store", errno, dir_);
    }
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] != '.') names.emplace_back(e->d_name);
    }
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  std::vector<Runtime> out;
  for (const auto& n : names) {
    if (!check_name(n)) continue;  // not a jail (a temp directory)
    auto r = load(n);
    if (!r) return std::move(r).take_error();
    out.push_back(std::move(*r));
  }
  return out;
}

Result<void> Store::save(const Runtime& r) const {
  auto dir = sys::open_dir_no_symlinks(root_of(r.name) + "/runtime");
  if (!dir) return std::move(dir).take_error();
  std::string text = runtime_to_json(r).dump(2) + "\n";
  return sys::write_file_at(dir->get(), "runtime.json", text, 0600);
}

Result<Lock> Store::lock(std::string_view name, bool exclusive) const {
  if (auto n = check_name(name); !n) return std::move(n).take_error();
  const std::string where = root_of(name) + "/runtime/lock";
  auto dir = sys::open_dir_no_symlinks(root_of(name) + "/runtime");
  if (!dir) return std::move(dir).take_error();
  int fd = openat(dir->get(), "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return errno_error("cannot open the jail's lock", errno, where);
  Lock lock(fd);
  if (flock(fd, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK)
      return make_error(std::string("jail ") + std::string(name) + " is in use" +
                            (exclusive ? " (a command is running in it)" : " (it is being removed or synced)"),
                        where, exclusive ? "wait for it to end, then try again" : "try again when that is done");
    return errno_error("cannot lock the jail", errno, where);
  }
  return lock;
}

Result<void> Store::remove(std::string_view name) const {
  if (auto n = check_name(name); !n) return std::move(n).take_error();
  auto store = sys::open_dir_no_symlinks(dir_);
  if (!store) return std::move(store).take_error();
  const std::string root = root_of(name);
  struct stat st;
  if (fstatat(store->get(), std::string(name).c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
    return make_error("no jail named " + std::string(name), root, "paddock jail list shows the jails there are");
  auto r = load(name);
  // Renamed aside first, so that a half-removed jail is never taken for a jail.
  std::string aside = ".removing-" + std::string(name) + "-" + std::to_string(getpid());
  if (renameat(store->get(), std::string(name).c_str(), store->get(), aside.c_str()) != 0)
    return errno_error("cannot remove", errno, root);
  if (auto rm = remove_tree_at(store->get(), aside, dir_ + "/" + aside); !rm) return rm;
  // A worktree is unregistered from its repository (its branch is kept): its git directory,
  // <common>/worktrees/<id>, removed as a tree (no git runs on what the run wrote there).
  if (r && r->workspace_mode == WorkspaceMode::Worktree) {
    const std::string worktrees = r->git_common_dir + "/worktrees";
    const auto slash = r->git_dir.rfind('/');
    if (slash != std::string::npos && r->git_dir.substr(0, slash) == worktrees) {
      const std::string id = r->git_dir.substr(slash + 1);
      if (auto wd = sys::open_dir_no_symlinks(worktrees); wd && !id.empty() && id != "." && id != "..")
        (void)remove_tree_at(wd->get(), id, r->git_dir);
    }
  }
  return {};
}

Result<Runtime> Store::create(const CreateOptions& o) {
  if (auto n = check_name(o.name); !n) return std::move(n).take_error();
  if (o.source.empty() || o.source[0] != '/') return make_error("the source must be an absolute path", o.source);
  char real[PATH_MAX];
  if (!realpath(o.source.c_str(), real)) return errno_error("cannot resolve the source", errno, o.source);
  std::string source = real;
  struct stat sst;
  if (stat(source.c_str(), &sst) != 0 || !S_ISDIR(sst.st_mode)) return make_error("the source is not a directory", source);
  const std::string root = root_of(o.name);
  if (source == dir_ || source.compare(0, dir_.size() + 1, dir_ + "/") == 0)
    return make_error("the source lies inside the jail store", source, "make a jail of a project directory");
  if (o.workspace != WorkspaceMode::Host && (source == "/" || dir_.compare(0, source.size() + 1, source + "/") == 0))
    return make_error("the jail store (" + dir_ + ") lies inside the source: the workspace would contain itself",
                      source, "make a jail of a project directory, not of HOME or a parent of it");

  auto store = sys::open_dir_no_symlinks(dir_);
  if (!store) return std::move(store).take_error();
  if (mkdirat(store->get(), o.name.c_str(), 0700) != 0) {
    if (errno == EEXIST)
      return make_error("a jail named " + o.name + " exists already", root,
                        "paddock jail show " + o.name + " describes it; paddock jail rm " + o.name + " removes it");
    return errno_error("cannot create the jail root", errno, root);
  }
  // From here on a failure removes what was made.
  bool done = false;
  std::string worktree_to_remove, worktree_common;
  struct Cleanup {
    std::function<void()> f;
    ~Cleanup() { f(); }
  } cleanup{[&] {
    if (done) return;
    if (!worktree_to_remove.empty())
      (void)run_git({"--git-dir=" + worktree_common, "worktree", "remove", "--force", worktree_to_remove}, "/");
    (void)remove_tree_at(store->get(), o.name, root);
  }};

  auto rootfd = open_checked(store->get(), o.name, root, "the jail root");
  if (!rootfd) return std::move(rootfd).take_error();
  for (const char* sub : kSubdirs) {
    if (mkdirat(rootfd->get(), sub, 0700) != 0) return errno_error("cannot create", errno, root + "/" + sub);
  }
  Runtime r;
  r.name = o.name;
  r.jail_root = root;
  r.profile = o.profile;
  r.profile_root = o.profile_root;
  r.workspace_mode = o.workspace;
  r.home_mode = o.home;
  r.home_root = root + "/home";
  r.source = source;
  r.backend = o.backend;
  r.created = r.last_used = static_cast<std::int64_t>(std::time(nullptr));
  r.max_size_bytes = o.max_size_bytes;
  const std::string ws = root + "/workspaces/" + o.name;
  switch (o.workspace) {
    case WorkspaceMode::Host:
      r.workspace_root = source;
      break;
    case WorkspaceMode::Copy: {
      std::vector<ManifestEntry> manifest;
      auto c = copy_tree_manifest(source, ws, &manifest, o.progress);
      if (!c) return std::move(c).take_error();
      auto rt = sys::open_dir_no_symlinks(root + "/runtime");
      if (!rt) return std::move(rt).take_error();
      if (auto w = write_manifest(rt->get(), manifest); !w) return std::move(w).take_error();
      r.workspace_root = ws;
      break;
    }
    case WorkspaceMode::Worktree: {
      auto top = git_ok({"rev-parse", "--show-toplevel"}, source);
      if (!top) return make_error("the source is not in a git repository", source, "use --workspace copy or host");
      std::string toplevel = trim(*top);
      auto common = git_ok({"rev-parse", "--path-format=absolute", "--git-common-dir"}, toplevel);
      if (!common) return std::move(common).take_error();
      auto head = git_ok({"rev-parse", "--verify", "HEAD^{commit}"}, toplevel);
      if (!head) return make_error("the source repository has no commit yet", toplevel, "commit once, then make the jail");
      r.source = toplevel;
      r.git_common_dir = trim(*common);
      r.git_base = trim(*head);
      r.git_branch = "paddock/" + o.name;
      auto add = git_ok({"worktree", "add", "-b", r.git_branch, ws, r.git_base}, toplevel);
      if (!add) return std::move(add).take_error();
      worktree_to_remove = ws;
      worktree_common = r.git_common_dir;
      auto gd = git_ok({"rev-parse", "--absolute-git-dir"}, ws);
      if (!gd) return std::move(gd).take_error();
      r.git_dir = trim(*gd);
      r.workspace_root = ws;
      break;
    }
    case WorkspaceMode::Overlay: {
      // workspaces/<name>/{merged,upper,work}: the run sees the source through an overlay
      // mounted at merged inside its own mount namespace; its writes land in upper. Nothing is
      // copied: creation does not depend on the source's size.
      if (mkdirat(rootfd->get(), ("workspaces/" + o.name).c_str(), 0700) != 0)
        return errno_error("cannot create", errno, ws);
      for (const char* sub : {"merged", "upper", "work"}) {
        if (mkdirat(rootfd->get(), ("workspaces/" + o.name + "/" + sub).c_str(), 0700) != 0)
          return errno_error("cannot create", errno, ws + "/" + sub);
      }
      // The merged view's root takes the upper directory's mode: the source's, never writable by others.
      if (chmod((ws + "/upper").c_str(), sst.st_mode & 0755) != 0) return errno_error("cannot chmod", errno, ws + "/upper");
      // The instant the jail was made, to tell later changes of the source (its lower layer)
      // from earlier ones: a source file whose inode changed after it was changed underneath.
      int stamp = openat(rootfd->get(), "runtime/source-stamp", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
      if (stamp < 0) return errno_error("cannot create", errno, root + "/runtime/source-stamp");
      ::close(stamp);
      r.workspace_root = ws + "/merged";
      break;
    }
  }
  if (auto s = save(r); !s) return std::move(s).take_error();
  done = true;
  return r;
}

}  // namespace paddock::jail
