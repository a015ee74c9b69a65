// What a jail changed against its source (diff), and publishing it (sync).
//
// copy: the manifest written at copy time holds each entry's stat in the source and in the
// workspace; an entry whose workspace stat is unchanged (ctime included, which nothing in user
// space can set back) was not touched, so a diff reads only what changed. `.git` directories are
// never part of a copy's changes: what a run wrote there must not reach the source's repository.
// worktree: the workspace is staged into a throwaway index (a copy of the worktree's own, so
// unchanged files are not read again) and compared with the commit the jail started from.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <unordered_map>
#include <unordered_set>

#include <sys/sysmacros.h>
#include <sys/xattr.h>

#include <functional>

#include "jail/process.h"
#include "policy/protected_paths.h"
#include "jail/tree.h"
#include "paddock/jail.h"
#include "sys/anchored_dir.h"

namespace paddock::jail {
namespace {

std::string path_parent(const std::string& p) { return p.substr(0, p.rfind('/')); }

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

bool in_git_dir(const std::string& rel) {
  std::size_t pos = 0;
  while (pos <= rel.size()) {
    std::size_t slash = rel.find('/', pos);
    std::string_view comp = std::string_view(rel).substr(pos, slash == std::string::npos ? std::string::npos : slash - pos);
    if (comp == ".git") return true;
    if (slash == std::string::npos) break;
    pos = slash + 1;
  }
  return false;
}

// ---- worktree -------------------------------------------------------------------------------

std::vector<std::string> worktree_env(const Runtime& r, const std::string& index) {
  std::vector<std::string> env = {"GIT_DIR=" + r.git_dir, "GIT_COMMON_DIR=" + r.git_common_dir,
                                  "GIT_WORK_TREE=" + r.workspace_root};
  if (!index.empty()) env.push_back("GIT_INDEX_FILE=" + index);
  return env;
}

// The workspace as a tree object (everything, untracked files included, as `git add -A` sees it).
Result<std::string> worktree_tree(const Runtime& r) {
  const std::string index = r.jail_root + "/tmp/index." + std::to_string(getpid());
  struct Unlink {
    std::string p;
    ~Unlink() { ::unlink(p.c_str()); }
  } unlink_index{index};
  // The worktree's own index has every unchanged file's stat: start from a copy of it. It lies
  // where the run could write: read without following a symlink, and only as data.
  bool have_index = false;
  if (auto gd = sys::open_dir_no_symlinks(r.git_dir)) {
    int in = openat(gd->get(), "index", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (in >= 0) {
      sys::UniqueFd src(in);
      int out = ::open(index.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
      if (out >= 0) {
        sys::UniqueFd dst(out);
        char buf[1 << 16];
        ssize_t n;
        have_index = true;
        while ((n = read(src.get(), buf, sizeof(buf))) > 0)
          if (write(dst.get(), buf, static_cast<std::size_t>(n)) != n) have_index = false;
        if (n < 0) have_index = false;
      }
    }
  }
  auto env = worktree_env(r, index);
  if (!have_index) {
    ::unlink(index.c_str());
    if (auto rt = git_ok({"read-tree", r.git_base}, r.workspace_root, env); !rt) return std::move(rt).take_error();
  }
  if (auto add = git_ok({"add", "-A", "--", "."}, r.workspace_root, env); !add) return std::move(add).take_error();
  auto tree = git_ok({"write-tree"}, r.workspace_root, env);
  if (!tree) return std::move(tree).take_error();
  return trim(*tree);
}

Result<Diff> worktree_diff(const Runtime& r, bool with_patch, std::string* tree_out = nullptr) {
  auto tree = worktree_tree(r);
  if (!tree) return std::move(tree).take_error();
  if (tree_out) *tree_out = *tree;
  auto env = worktree_env(r, "");
  auto names = git_ok({"diff-tree", "-r", "-z", "--no-renames", "--name-status", r.git_base, *tree}, r.workspace_root, env);
  if (!names) return std::move(names).take_error();
  Diff d;
  const std::string& s = *names;
  std::size_t pos = 0;
  while (pos < s.size()) {
    std::size_t e1 = s.find('\0', pos);
    if (e1 == std::string::npos) break;
    std::string status = s.substr(pos, e1 - pos);
    std::size_t e2 = s.find('\0', e1 + 1);
    if (e2 == std::string::npos) break;
    char k = status.empty() ? 'M' : status[0];
    if (k != 'A' && k != 'D') k = 'M';
    d.changes.push_back({k, s.substr(e1 + 1, e2 - e1 - 1)});
    pos = e2 + 1;
  }
  if (with_patch) {
    auto p = git_ok({"diff-tree", "-p", "--binary", "--no-ext-diff", "--no-textconv", "--no-renames", r.git_base, *tree},
                    r.workspace_root, env);
    if (!p) return std::move(p).take_error();
    d.patch = std::move(*p);
  }
  return d;
}

// ---- copy -----------------------------------------------------------------------------------

bool same_content(int a_dir, int b_dir, const std::string& rel, const EntryStat& a, const EntryStat& b) {
  if (a.type != b.type || a.mode != b.mode || a.size != b.size) return false;
  if (a.type == 'l') {
    char x[4096], y[4096];
    auto fa = open_beneath(a_dir, rel, O_PATH | O_NOFOLLOW);
    auto fb = open_beneath(b_dir, rel, O_PATH | O_NOFOLLOW);
    if (!fa || !fb) return false;
    ssize_t n = readlinkat(fa->get(), "", x, sizeof(x));
    ssize_t m = readlinkat(fb->get(), "", y, sizeof(y));
    return n >= 0 && n == m && std::memcmp(x, y, static_cast<std::size_t>(n)) == 0;
  }
  if (a.type != 'f') return true;
  auto fa = open_beneath(a_dir, rel, O_RDONLY | O_NOFOLLOW);
  auto fb = open_beneath(b_dir, rel, O_RDONLY | O_NOFOLLOW);
  if (!fa || !fb) return false;
  char x[1 << 15], y[1 << 15];
  for (;;) {
    ssize_t n = read(fa->get(), x, sizeof(x));
    ssize_t m = read(fb->get(), y, sizeof(y));
    if (n < 0 || m < 0 || n != m) return false;
    if (n == 0) return true;
    if (std::memcmp(x, y, static_cast<std::size_t>(n)) != 0) return false;
  }
}

struct CopyState {
  sys::UniqueFd src, ws, runtime;
  std::vector<ManifestEntry> manifest;
  std::unordered_map<std::string, std::size_t> index;  // path -> manifest position
};

Result<CopyState> open_copy(const Runtime& r) {
  CopyState c;
  auto s = sys::open_dir_no_symlinks(r.source);
  if (!s) return std::move(s).take_error();
  auto w = sys::open_dir_no_symlinks(r.workspace_root);
  if (!w) return std::move(w).take_error();
  auto rt = sys::open_dir_no_symlinks(r.jail_root + "/runtime");
  if (!rt) return std::move(rt).take_error();
  auto m = read_manifest(rt->get(), r.jail_root + "/runtime/manifest");
  if (!m) return std::move(m).take_error();
  c.src = std::move(*s);
  c.ws = std::move(*w);
  c.runtime = std::move(*rt);
  c.manifest = std::move(*m);
  for (std::size_t i = 0; i < c.manifest.size(); ++i) c.index.emplace(c.manifest[i].path, i);
  return c;
}

EntryStat lstat_at(int dirfd, const std::string& rel) {
  struct stat st;
  auto fd = open_beneath(dirfd, rel, O_PATH | O_NOFOLLOW);
  if (!fd || fstat(fd->get(), &st) != 0) return {};
  return entry_stat(st);
}

Result<std::vector<Change>> copy_changes(CopyState& c, const Runtime& r) {
  std::vector<Change> out;
  std::unordered_set<std::string> seen;
  auto w = walk(c.ws.get(), r.workspace_root, [&](const std::string& rel, const struct stat& st) {
    if (in_git_dir(rel)) return;
    const EntryStat e = entry_stat(st);
    if (e.type == 'd') {
      seen.insert(rel);
      return;
    }
    if (e.type == 0) return;  // a FIFO or socket a run made: not a project file
    seen.insert(rel);
    auto it = c.index.find(rel);
    if (it == c.index.end() || c.manifest[it->second].workspace.type == 0 || c.manifest[it->second].workspace.type == 'd') {
      out.push_back({'A', rel});
      return;
    }
    const ManifestEntry& m = c.manifest[it->second];
    if (e == m.workspace) return;  // untouched since the copy (or the last sync)
    // Touched: changed only if it now differs from the source as the copy saw it.
    const EntryStat now = lstat_at(c.src.get(), rel);
    if (now.type && now.type == m.source.type && now.size == m.source.size && now.mtime_ns == m.source.mtime_ns &&
        same_content(c.src.get(), c.ws.get(), rel, now, e))
      return;
    out.push_back({'M', rel});
  }, ".git");
  if (!w) return std::move(w).take_error();
  for (const auto& m : c.manifest) {
    if (m.workspace.type == 'd' || m.workspace.type == 0 || in_git_dir(m.path)) continue;
    if (!seen.count(m.path)) out.push_back({'D', m.path});
  }
  std::sort(out.begin(), out.end(), [](const Change& a, const Change& b) { return a.path < b.path; });
  return out;
}

// `git diff --no-index` of one path, its absolute names turned into a/REL and b/REL.
Result<std::string> copy_patch_one(const Runtime& r, const Change& ch) {
  const std::string a = ch.kind == 'A' ? "/dev/null" : r.source + "/" + ch.path;
  const std::string b = ch.kind == 'D' ? "/dev/null" : r.workspace_root + "/" + ch.path;
  auto res = run_git({"diff", "--no-index", "--binary", "--no-ext-diff", "--no-textconv", "--", a, b}, "/");
  if (!res) return std::move(res).take_error();
  if (res->status != 0 && res->status != 1)
    return make_error("git diff --no-index failed: " + trim(res->err), ch.path);
  std::string out;
  std::size_t pos = 0;
  const std::string& s = res->out;
  bool header = true;
  while (pos < s.size()) {
    std::size_t nl = s.find('\n', pos);
    std::string line = s.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos + 1);
    pos = nl == std::string::npos ? s.size() : nl + 1;
    if (line.rfind("@@", 0) == 0 || line.rfind("GIT binary patch", 0) == 0) header = false;
    if (line.rfind("diff --git ", 0) == 0) header = true;
    if (header) {
      for (const std::string* root : {&r.source, &r.workspace_root}) {
        for (const char* side : {"a", "b"}) {
          const std::string from = std::string(side) + *root + "/";
          const std::string to = std::string(side) + "/";
          for (std::size_t at; (at = line.find(from)) != std::string::npos;) line.replace(at, from.size(), to);
        }
      }
    }
    out += line;
  }
  return out;
}

// Writes the workspace's REL into the source (a file or a symlink, by temp + rename).
Result<void> put_into_source(CopyState& c, const Runtime& r, const std::string& rel, const std::string& from_root) {
  const std::string where = r.source + "/" + rel;
  // The source's parents, made as needed (no symlink followed in the source either).
  int parent = c.src.get();
  sys::UniqueFd holder;
  std::size_t slash = rel.rfind('/');
  std::string name = slash == std::string::npos ? rel : rel.substr(slash + 1);
  if (slash != std::string::npos) {
    std::string dirs = rel.substr(0, slash);
    std::size_t p = 0;
    while (p <= dirs.size()) {
      std::size_t s2 = dirs.find('/', p);
      std::string comp = dirs.substr(p, s2 == std::string::npos ? std::string::npos : s2 - p);
      if (mkdirat(parent, comp.c_str(), 0755) != 0 && errno != EEXIST) return errno_error("cannot create directory", errno, where);
      int fd = openat(parent, comp.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0) return errno_error("cannot open directory", errno, where);
      holder.reset(fd);
      parent = holder.get();
      if (s2 == std::string::npos) break;
      p = s2 + 1;
    }
  }
  const std::string tmp = "." + name.substr(0, 200) + ".paddock-sync." + std::to_string(getpid());
  struct stat st;
  auto src = open_beneath(c.ws.get(), rel, O_PATH | O_NOFOLLOW);
  if (!src || fstat(src->get(), &st) != 0) return errno_error("cannot read from the workspace", errno, from_root + "/" + rel);
  if (S_ISLNK(st.st_mode)) {
    char target[4096];
    ssize_t n = readlinkat(src->get(), "", target, sizeof(target) - 1);
    if (n < 0) return errno_error("cannot read link", errno, from_root + "/" + rel);
    target[n] = '\0';
    if (symlinkat(target, parent, tmp.c_str()) != 0) return errno_error("cannot create symlink", errno, where);
  } else if (S_ISREG(st.st_mode)) {
    auto in = open_beneath(c.ws.get(), rel, O_RDONLY | O_NOFOLLOW);
    if (!in) return std::move(in).take_error();
    int out = openat(parent, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (out < 0) return errno_error("cannot create", errno, where);
    sys::UniqueFd o(out);
    char buf[1 << 16];
    ssize_t n;
    while ((n = read(in->get(), buf, sizeof(buf))) > 0)
      for (ssize_t off = 0; off < n;) {
        ssize_t w = write(o.get(), buf + off, static_cast<std::size_t>(n - off));
        if (w < 0) {
          unlinkat(parent, tmp.c_str(), 0);
          return errno_error("cannot write", errno, where);
        }
        off += w;
      }
    fchmod(o.get(), st.st_mode & 0777);
    if (fsync(o.get()) != 0) return errno_error("cannot write", errno, where);
  } else {
    return make_error("not a file or symlink", from_root + "/" + rel);
  }
  if (renameat(parent, tmp.c_str(), parent, name.c_str()) != 0) {
    int e = errno;
    unlinkat(parent, tmp.c_str(), 0);
    return errno_error("cannot replace", e, where);
  }
  return {};
}

// Paths the host runs or trusts later (the protected list: .envrc, .vscode, .claude/settings.json,
// ...), at any depth: never written into the source by --apply, whatever the jail did.
bool host_runs_it(const std::string& rel) {
  for (const auto& e : workspace_protected_entries()) {
    const std::string& p = e.path;
    for (std::size_t at = 0;; ++at) {
      at = rel.find(p, at);
      if (at == std::string::npos) break;
      const bool starts = at == 0 || rel[at - 1] == '/';
      const std::size_t end = at + p.size();
      const bool ends = end == rel.size() || rel[end] == '/';
      if (starts && ends) return true;
    }
  }
  return false;
}

Result<std::vector<Change>> refuse_conflicts(const Runtime& r, const std::vector<std::string>& conflicts,
                                             std::vector<std::string>* refused) {
  if (refused) *refused = conflicts;
  std::string list;
  for (const auto& p : conflicts) list += "\n  " + p;
  return make_error(std::to_string(conflicts.size()) + " file(s) the jail changed were also changed in the source "
                        "since the jail was made; nothing was applied:" + list,
                    r.source, "paddock jail sync " + r.name + " --patch FILE writes the changes as a patch to merge by hand");
}

// Writes CHANGES (read from FROM, the workspace or the overlay's upper directory) into the
// source. Paths the host runs are left out and returned in `held`.
Result<std::vector<Change>> apply_changes(CopyState& c, const Runtime& r, const std::vector<Change>& changes,
                                          const std::string& from_root, std::vector<std::string>& held) {
  std::vector<Change> done;
  for (const Change& ch : changes) {
    if (host_runs_it(ch.path)) {
      held.push_back(ch.path);
      continue;
    }
    if (ch.kind == 'D') {
      auto parent_rel = ch.path.find('/') == std::string::npos ? std::string(".") : ch.path.substr(0, ch.path.rfind('/'));
      auto pfd = open_beneath(c.src.get(), parent_rel, O_RDONLY | O_DIRECTORY);
      if (!pfd) return std::move(pfd).take_error();
      std::string name = ch.path.substr(ch.path.rfind('/') == std::string::npos ? 0 : ch.path.rfind('/') + 1);
      if (unlinkat(pfd->get(), name.c_str(), 0) != 0 && errno != ENOENT)
        return errno_error("cannot remove", errno, r.source + "/" + ch.path);
    } else if (auto p = put_into_source(c, r, ch.path, from_root); !p) {
      return std::move(p).take_error();
    }
    done.push_back(ch);
  }
  return done;
}

Result<std::vector<Change>> copy_apply(const Runtime& r, std::vector<std::string>& held, std::vector<std::string>* refused) {
  auto c = open_copy(r);
  if (!c) return std::move(c).take_error();
  auto changes = copy_changes(*c, r);
  if (!changes) return std::move(changes).take_error();
  // Refused whole when the source changed underneath any of them.
  std::vector<std::string> conflicts;
  for (const Change& ch : *changes) {
    const EntryStat now = lstat_at(c->src.get(), ch.path);
    auto it = c->index.find(ch.path);
    const EntryStat before = it == c->index.end() ? EntryStat{} : c->manifest[it->second].source;
    const bool same = now.type == before.type &&
                      (now.type == 0 || (now.size == before.size && now.mtime_ns == before.mtime_ns &&
                                         now.mode == before.mode && now.ino == before.ino));
    if (!same) conflicts.push_back(ch.path);
  }
  if (!conflicts.empty()) return refuse_conflicts(r, conflicts, refused);
  auto done = apply_changes(*c, r, *changes, r.workspace_root, held);
  if (!done) return done;
  // The manifest now takes the synced state as the new starting point.
  std::vector<ManifestEntry> next;
  std::unordered_set<std::string> changed;
  for (const Change& ch : *done) changed.insert(ch.path);
  for (auto& m : c->manifest)
    if (!changed.count(m.path)) next.push_back(std::move(m));
  for (const Change& ch : *done) {
    if (ch.kind == 'D') continue;
    next.push_back({ch.path, lstat_at(c->src.get(), ch.path), lstat_at(c->ws.get(), ch.path)});
  }
  if (auto w = write_manifest(c->runtime.get(), next); !w) return std::move(w).take_error();
  return done;
}

// ---- overlay --------------------------------------------------------------------------------
// The upper directory holds exactly what the jail changed: files and symlinks it wrote (copied
// up whole), whiteouts (0/0 character devices) for what it deleted, and directories marked
// opaque (user.overlay.opaque = "y") that replace the source's directory of that name.

std::string overlay_upper(const Runtime& r) { return path_parent(r.workspace_root) + "/upper"; }

bool is_whiteout(const struct stat& st) { return S_ISCHR(st.st_mode) && st.st_rdev == makedev(0, 0); }

bool is_opaque(int upper, const std::string& rel) {
  auto fd = open_beneath(upper, rel, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  if (!fd) return false;
  char v[4];
  ssize_t n = fgetxattr(fd->get(), "user.overlay.opaque", v, sizeof(v));
  return n >= 1 && v[0] == 'y';
}

// Every file and symlink at or under REL in the source, as deletions.
void deleted_subtree(int src, const std::string& rel, std::vector<Change>& out,
                     const std::function<bool(const std::string&)>& keep) {
  const EntryStat e = lstat_at(src, rel);
  if (e.type == 'f' || e.type == 'l') {
    if (keep(rel)) out.push_back({'D', rel});
    return;
  }
  if (e.type != 'd') return;
  auto fd = open_beneath(src, rel, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  if (!fd) return;
  (void)walk(fd->get(), rel, [&](const std::string& sub, const struct stat& st) {
    if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) {
      const std::string p = rel + "/" + sub;
      if (keep(p)) out.push_back({'D', p});
    }
  });
}

Result<std::vector<Change>> overlay_changes(int src, int upper, const Runtime& r) {
  std::vector<Change> out;
  std::vector<std::string> opaque;
  auto w = walk(upper, overlay_upper(r), [&](const std::string& rel, const struct stat& st) {
    if (in_git_dir(rel)) return;
    const EntryStat lower = lstat_at(src, rel);
    if (is_whiteout(st)) {
      deleted_subtree(src, rel, out, [](const std::string& p) { return !in_git_dir(p); });
      return;
    }
    if (S_ISDIR(st.st_mode)) {
      if (lower.type && lower.type != 'd') out.push_back({'D', rel});
      if (lower.type == 'd' && is_opaque(upper, rel)) opaque.push_back(rel);
      return;
    }
    if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) return;
    if (lower.type == 'd') deleted_subtree(src, rel, out, [](const std::string& p) { return !in_git_dir(p); });
    if (lower.type == 0 || lower.type == 'd') {
      out.push_back({'A', rel});
      return;
    }
    if (!same_content(src, upper, rel, lower, entry_stat(st))) out.push_back({'M', rel});
  }, ".git");
  if (!w) return std::move(w).take_error();
  // An opaque directory hides all of the source's: what the upper does not hold again is gone.
  for (const std::string& dir : opaque) {
    deleted_subtree(src, dir, out, [&](const std::string& p) {
      return !in_git_dir(p) && lstat_at(upper, p).type == 0;
    });
  }
  std::sort(out.begin(), out.end(), [](const Change& a, const Change& b) {
    return a.path != b.path ? a.path < b.path : a.kind < b.kind;
  });
  out.erase(std::unique(out.begin(), out.end(), [](const Change& a, const Change& b) {
    return a.path == b.path && a.kind == b.kind;
  }), out.end());
  return out;
}

Result<CopyState> open_overlay(const Runtime& r) {
  CopyState c;
  auto s = sys::open_dir_no_symlinks(r.source);
  if (!s) return std::move(s).take_error();
  auto u = sys::open_dir_no_symlinks(overlay_upper(r));
  if (!u) return std::move(u).take_error();
  c.src = std::move(*s);
  c.ws = std::move(*u);
  return c;
}

Result<std::vector<Change>> overlay_apply(const Runtime& r, std::vector<std::string>& held,
                                          std::vector<std::string>* refused) {
  auto c = open_overlay(r);
  if (!c) return std::move(c).take_error();
  auto changes = overlay_changes(c->src.get(), c->ws.get(), r);
  if (!changes) return std::move(changes).take_error();
  // The source is the lower layer: one of its files changed since the jail was made (or last
  // synced) when its inode change time, which nothing in user space can set back, is later than
  // runtime/source-stamp's.
  auto rt = sys::open_dir_no_symlinks(r.jail_root + "/runtime");
  if (!rt) return std::move(rt).take_error();
  struct stat stamp;
  if (fstatat(rt->get(), "source-stamp", &stamp, AT_SYMLINK_NOFOLLOW) != 0)
    return errno_error("cannot stat", errno, r.jail_root + "/runtime/source-stamp");
  auto later = [&](const struct timespec& t) {
    return t.tv_sec > stamp.st_mtim.tv_sec || (t.tv_sec == stamp.st_mtim.tv_sec && t.tv_nsec > stamp.st_mtim.tv_nsec);
  };
  std::vector<std::string> conflicts;
  for (const Change& ch : *changes) {
    struct stat st;
    auto fd = open_beneath(c->src.get(), ch.path, O_PATH | O_NOFOLLOW);
    if (!fd || fstat(fd->get(), &st) != 0) {
      if (ch.kind == 'M' || ch.kind == 'D') conflicts.push_back(ch.path);  // it was there when diffed
      continue;
    }
    if (ch.kind == 'A' || later(st.st_ctim)) conflicts.push_back(ch.path);
  }
  std::sort(conflicts.begin(), conflicts.end());
  conflicts.erase(std::unique(conflicts.begin(), conflicts.end()), conflicts.end());
  if (!conflicts.empty()) return refuse_conflicts(r, conflicts, refused);
  auto done = apply_changes(*c, r, *changes, overlay_upper(r), held);
  if (!done) return done;
  // What this sync wrote is the source's new starting point.
  int fd = openat(rt->get(), "source-stamp", O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    futimens(fd, nullptr);
    ::close(fd);
  }
  return done;
}

}  // namespace

Result<Diff> diff(const Runtime& r, bool with_patch) {
  switch (r.workspace_mode) {
    case WorkspaceMode::Host:
      return make_error("a host workspace is the source itself: there is nothing to compare",
                        r.source, "use git diff in the source");
    case WorkspaceMode::Overlay: {
      auto c = open_overlay(r);
      if (!c) return std::move(c).take_error();
      auto ch = overlay_changes(c->src.get(), c->ws.get(), r);
      if (!ch) return std::move(ch).take_error();
      Diff d;
      d.changes = std::move(*ch);
      if (with_patch) {
        Runtime upper = r;
        upper.workspace_root = overlay_upper(r);
        for (const Change& one : d.changes) {
          auto p = copy_patch_one(upper, one);
          if (!p) return std::move(p).take_error();
          d.patch += *p;
        }
      }
      return d;
    }
    case WorkspaceMode::Worktree:
      return worktree_diff(r, with_patch);
    case WorkspaceMode::Copy: {
      auto c = open_copy(r);
      if (!c) return std::move(c).take_error();
      auto ch = copy_changes(*c, r);
      if (!ch) return std::move(ch).take_error();
      Diff d;
      d.changes = std::move(*ch);
      if (with_patch) {
        for (const Change& one : d.changes) {
          auto p = copy_patch_one(r, one);
          if (!p) return std::move(p).take_error();
          d.patch += *p;
        }
      }
      return d;
    }
  }
  return make_error("unknown workspace mode");
}

namespace {

// copy and overlay: the jail's patch (the same one --patch writes) applied to a throwaway index
// holding the source's HEAD, written as a tree and committed on top of HEAD. Neither the source's
// work tree nor its own index is touched; a patch that does not apply to HEAD (the source's
// committed files differ from what the jail started from) fails whole.
Result<std::string> patch_to_branch(const Runtime& r, const std::string& branch) {
  auto d = diff(r, true);
  if (!d) return std::move(d).take_error();
  if (d->changes.empty()) return make_error("the jail changed nothing: no branch made", r.name);
  auto head = git_ok({"rev-parse", "--verify", "HEAD^{commit}"}, r.source);
  if (!head) return make_error("--to-branch needs a source that is a git repository with a commit", r.source);
  const std::string commit = trim(*head);
  auto tmp = sys::open_dir_no_symlinks(r.jail_root + "/tmp");
  if (!tmp) return std::move(tmp).take_error();
  const std::string tag = std::to_string(getpid());
  const std::string patch = r.jail_root + "/tmp/branch.patch." + tag, index = r.jail_root + "/tmp/branch.index." + tag;
  if (auto w = sys::write_file_at(tmp->get(), "branch.patch." + tag, d->patch, 0600); !w) return std::move(w).take_error();
  ::unlinkat(tmp->get(), ("branch.index." + tag).c_str(), 0);
  std::vector<std::string> env = {"GIT_INDEX_FILE=" + index};
  auto done = [&]() -> Result<std::string> {
    if (auto rt = git_ok({"read-tree", commit}, r.source, env); !rt) return std::move(rt).take_error();
    if (auto ap = git_ok({"apply", "--cached", "--binary", "--", patch}, r.source, env); !ap)
      return make_error("the jail's changes do not apply to the source's HEAD (" + commit.substr(0, 12) + "): " +
                            ap.error().message,
                        r.source, "paddock jail sync " + r.name + " --patch FILE, and merge it by hand");
    auto tree = git_ok({"write-tree"}, r.source, env);
    if (!tree) return std::move(tree).take_error();
    auto c = git_ok({"commit-tree", trim(*tree), "-p", commit, "-m", "paddock jail " + r.name + ": the jail's changes"},
                    r.source, env);
    if (!c) return std::move(c).take_error();
    if (auto b = git_ok({"branch", "--", branch, trim(*c)}, r.source); !b) return std::move(b).take_error();
    return trim(*c);
  }();
  ::unlinkat(tmp->get(), ("branch.patch." + tag).c_str(), 0);
  ::unlinkat(tmp->get(), ("branch.index." + tag).c_str(), 0);
  return done;
}

}  // namespace

Result<std::string> sync_to_branch(const Runtime& r, const std::string& branch) {
  if (r.workspace_mode == WorkspaceMode::Host)
    return make_error("a host workspace is the source itself: commit there", r.source);
  if (branch.empty() || branch[0] == '-') return make_error("invalid branch name", branch);
  if (auto chk = git_ok({"check-ref-format", "--branch", branch}, r.source); !chk)
    return make_error("invalid branch name", branch);
  if (r.workspace_mode != WorkspaceMode::Worktree) return patch_to_branch(r, branch);
  std::string tree;
  auto d = worktree_diff(r, false, &tree);
  if (!d) return std::move(d).take_error();
  auto env = worktree_env(r, "");
  auto head = git_ok({"rev-parse", "--verify", "HEAD^{commit}"}, r.workspace_root, env);
  if (!head) return std::move(head).take_error();
  std::string commit = trim(*head);
  auto head_tree = git_ok({"rev-parse", commit + "^{tree}"}, r.workspace_root, env);
  if (!head_tree) return std::move(head_tree).take_error();
  if (trim(*head_tree) != tree) {
    auto c = git_ok({"commit-tree", tree, "-p", commit, "-m",
                     "paddock jail " + r.name + ": uncommitted work from the jail"},
                    r.workspace_root, env);
    if (!c) return std::move(c).take_error();
    commit = trim(*c);
  }
  if (auto b = git_ok({"branch", "--", branch, commit}, r.source); !b) return std::move(b).take_error();
  return commit;
}

Result<std::vector<Change>> sync_apply(const Runtime& r, std::vector<std::string>& held,
                                       std::vector<std::string>* refused) {
  switch (r.workspace_mode) {
    case WorkspaceMode::Copy:
      return copy_apply(r, held, refused);
    case WorkspaceMode::Overlay:
      return overlay_apply(r, held, refused);
    case WorkspaceMode::Worktree: {
      auto d = worktree_diff(r, true);
      if (!d) return std::move(d).take_error();
      if (d->changes.empty()) return d->changes;
      // Refused when the source's files differ from the commit the jail started from.
      std::vector<std::string> args = {"diff", "--name-only", "--no-renames", r.git_base, "--"};
      for (const Change& c : d->changes) args.push_back(":(literal)" + c.path);
      auto changed = git_ok(args, r.source);
      if (!changed) return std::move(changed).take_error();
      std::vector<std::string> conflicts;
      std::size_t pos = 0;
      const std::string& s = *changed;
      while (pos < s.size()) {
        std::size_t nl = s.find('\n', pos);
        conflicts.push_back(s.substr(pos, nl - pos));
        pos = nl == std::string::npos ? s.size() : nl + 1;
      }
      for (const Change& c : d->changes) {
        struct stat st;
        if (c.kind == 'A' && lstat((r.source + "/" + c.path).c_str(), &st) == 0 &&
            std::find(conflicts.begin(), conflicts.end(), c.path) == conflicts.end())
          conflicts.push_back(c.path);
      }
      if (!conflicts.empty()) {
        if (refused) *refused = conflicts;
        std::string list;
        for (const auto& p : conflicts) list += "\n  " + p;
        return make_error(std::to_string(conflicts.size()) + " file(s) the jail changed were also changed in the source "
                              "since the jail was made; nothing was applied:" + list,
                          r.source, "paddock jail sync " + r.name + " --to-branch NAME publishes them as a branch to merge");
      }
      const std::string patch = r.jail_root + "/tmp/sync.patch." + std::to_string(getpid());
      auto tmp = sys::open_dir_no_symlinks(r.jail_root + "/tmp");
      if (!tmp) return std::move(tmp).take_error();
      if (auto w = sys::write_file_at(tmp->get(), "sync.patch." + std::to_string(getpid()), d->patch, 0600); !w)
        return std::move(w).take_error();
      std::vector<std::string> apply = {"apply", "--binary"};
      for (const Change& c : d->changes) {
        if (!host_runs_it(c.path)) continue;
        held.push_back(c.path);
        apply.push_back("--exclude=" + c.path);
      }
      apply.insert(apply.end(), {"--", patch});
      auto applied = git_ok(apply, r.source);
      ::unlink(patch.c_str());
      if (!applied) return std::move(applied).take_error();
      std::vector<Change> done;
      for (const Change& c : d->changes)
        if (!host_runs_it(c.path)) done.push_back(c);
      return done;
    }
    case WorkspaceMode::Host:
      return make_error("a host workspace is the source itself: its changes are there already", r.source);
  }
  return make_error("unknown workspace mode");
}

}  // namespace paddock::jail
