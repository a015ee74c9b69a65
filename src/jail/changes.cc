// What a jail changed against its source (changes.h), and `jail diff`.
#include "jail/changes.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <unordered_set>

#include "gate/gate.h"
#include "jail/ignore_rules.h"
#include "jail/object_files.h"
#include "jail/process.h"
#include "jail/repository_run.h"
#include "sys/anchored_dir.h"

namespace paddock::jail {

std::string trim_line(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

void judge(Change& c, mode_t mode) {
  if (auto v = gate::judge_path(c.path, gate::RootKind::Workspace, mode))
    c.held = std::string(gate::to_string(v->cls)) + ": " + v->why;
}

namespace {

std::string path_parent(const std::string& p) { return p.substr(0, p.rfind('/')); }

mode_t lstat_mode(int dirfd, const std::string& rel) {
  struct stat st;
  auto fd = open_beneath(dirfd, rel, O_PATH | O_NOFOLLOW);
  if (!fd || fstat(fd->get(), &st) != 0) return 0;
  return st.st_mode;
}

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

}  // namespace

// ---- copy -----------------------------------------------------------------------------------

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
    if (gate::in_git_directory(rel)) return;
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
      judge(out.back(), st.st_mode);
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
    judge(out.back(), st.st_mode);
  }, ".git");
  if (!w) return std::move(w).take_error();
  for (const auto& m : c.manifest) {
    if (m.workspace.type == 'd' || m.workspace.type == 0 || gate::in_git_directory(m.path)) continue;
    if (!seen.count(m.path)) {
      out.push_back({'D', m.path});
      judge(out.back(), 0);
    }
  }
  std::sort(out.begin(), out.end(), [](const Change& a, const Change& b) { return a.path < b.path; });
  return out;
}

// ---- overlay --------------------------------------------------------------------------------
// The upper directory holds exactly what the jail changed: files and symlinks it wrote (copied
// up whole), whiteouts (0/0 character devices) for what it deleted, and directories marked
// opaque (user.overlay.opaque = "y") that replace the source's directory of that name.

std::string overlay_upper(const Runtime& r) { return path_parent(r.workspace_root) + "/upper"; }

namespace {

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

}  // namespace

Result<std::vector<Change>> overlay_changes(CopyState& c, const Runtime& r) {
  const int src = c.src.get(), upper = c.ws.get();
  std::vector<Change> out;
  std::vector<std::string> opaque;
  auto w = walk(upper, overlay_upper(r), [&](const std::string& rel, const struct stat& st) {
    if (gate::in_git_directory(rel)) return;
    const EntryStat lower = lstat_at(src, rel);
    if (is_whiteout(st)) {
      deleted_subtree(src, rel, out, [](const std::string& p) { return !gate::in_git_directory(p); });
      return;
    }
    if (S_ISDIR(st.st_mode)) {
      if (lower.type && lower.type != 'd') out.push_back({'D', rel});
      if (lower.type == 'd' && is_opaque(upper, rel)) opaque.push_back(rel);
      return;
    }
    if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) return;
    if (lower.type == 'd') deleted_subtree(src, rel, out, [](const std::string& p) { return !gate::in_git_directory(p); });
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
      return !gate::in_git_directory(p) && lstat_at(upper, p).type == 0;
    });
  }
  std::sort(out.begin(), out.end(), [](const Change& a, const Change& b) {
    return a.path != b.path ? a.path < b.path : a.kind < b.kind;
  });
  out.erase(std::unique(out.begin(), out.end(), [](const Change& a, const Change& b) {
    return a.path == b.path && a.kind == b.kind;
  }), out.end());
  for (Change& ch : out) judge(ch, ch.kind == 'D' ? 0 : lstat_mode(upper, ch.path));
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


// ---- the sealed git ---------------------------------------------------------------------------

std::string source_common_dir(const Runtime& r) {
  if (r.workspace_mode == WorkspaceMode::Worktree) return r.git_common_dir;
  // The source is the user's own (a copy jail's runs never see it, an overlay's only read it).
  auto common = git_ok({"rev-parse", "--path-format=absolute", "--git-common-dir"}, r.source);
  return common ? trim_line(*common) : std::string();
}

Result<SealedGit> jail_git(const Runtime& r) {
  const std::string work = jail_git_work(r);
  if (auto w = private_dir(work); !w) return std::move(w).take_error();
  const std::string common = source_common_dir(r);
  if (common.empty()) return SealedGit::open(work + "/git", {});
  auto format = object_format_of(common);
  if (!format) return std::move(format).take_error();
  return SealedGit::open(work + "/git", {common + "/objects"}, *format);
}

Result<std::string> patch_one(const Runtime& r, const SealedGit& git, const Change& ch, const std::string& from_root) {
  const std::string a = ch.kind == 'A' ? "/dev/null" : r.source + "/" + ch.path;
  const std::string b = ch.kind == 'D' ? "/dev/null" : from_root + "/" + ch.path;
  auto res = git.run({"diff", "--no-index", "--binary", "--no-ext-diff", "--no-textconv", "--", a, b});
  if (!res) return std::move(res).take_error();
  if (res->status != 0 && res->status != 1)
    return make_error("git diff --no-index failed: " + trim_line(res->err), ch.path);
  // The absolute names become a/PATH and b/PATH.
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
      for (const std::string* root : {&r.source, &from_root}) {
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

// ---- worktree ---------------------------------------------------------------------------------

namespace {

mode_t mode_of(const TreeEntry& e) {
  if (e.mode == "100755") return S_IFREG | 0755;
  if (e.mode == "100644") return S_IFREG | 0644;
  if (e.mode == "120000") return S_IFLNK | 0777;
  if (e.mode == "040000") return S_IFDIR | 0755;
  return 0;
}

// Copies the regular file FROM to TO (paddock's own files).
bool copy_file_plain(const std::string& from, const std::string& to) {
  int in = ::open(from.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (in < 0) return false;
  sys::UniqueFd src(in);
  int out = ::open(to.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (out < 0) return false;
  sys::UniqueFd dst(out);
  char buf[1 << 16];
  ssize_t n;
  while ((n = read(src.get(), buf, sizeof(buf))) > 0)
    if (write(dst.get(), buf, static_cast<std::size_t>(n)) != n) return false;
  return n == 0;
}

}  // namespace

Result<WorktreeDiff> worktree_changes(const Runtime& r, const SealedGit& git, Ignored ignored) {
  // paddock's own index of the workspace (never the worktree's, which the run writes): a copy
  // per process, put in place when done. Ignored files included: an index of their own.
  const std::string work = jail_git_work(r);
  const std::string index = work + (ignored == Ignored::Include ? "/index-all" : "/index");
  const std::string tmp = index + "." + std::to_string(getpid());
  const std::string excludes = work + "/exclude." + std::to_string(getpid());
  struct Unlink {
    std::vector<std::string> p;
    ~Unlink() {
      for (const auto& f : p) ::unlink(f.c_str());
    }
  } unlink_tmp{{tmp, excludes}};
  if (!copy_file_plain(index, tmp)) {
    ::unlink(tmp.c_str());
    if (auto rt = git.ok({"read-tree", r.git_base}, {.index = tmp}); !rt) return std::move(rt).take_error();
  }
  // The source's exclude file (info/exclude, core.excludesFile) beside the workspace's .gitignore files.
  std::vector<std::string> rules;
  if (ignored == Ignored::LeaveOut) {
    auto wd = sys::open_dir_no_symlinks(work);
    if (!wd) return std::move(wd).take_error();
    if (auto w = sys::write_file_at(wd->get(), "exclude." + std::to_string(getpid()), source_excludes(r), 0600); !w)
      return std::move(w).take_error();
    rules = {"-c", "core.excludesFile=" + excludes};
  }
  // The files as they are: hashed into the sealed git's objects, nothing filtered or converted.
  std::vector<std::string> add = rules;
  add.insert(add.end(), {"add", "-A"});
  if (ignored == Ignored::Include) add.push_back("-f");
  add.insert(add.end(), {"--", "."});
  if (auto a = git.ok(add, {.work_tree = r.workspace_root, .index = tmp}); !a) return std::move(a).take_error();
  // What `add` left out, counted: untracked files the same rules ignore.
  std::vector<std::string> not_added;
  if (ignored == Ignored::LeaveOut) {
    std::vector<std::string> ls = rules;
    ls.insert(ls.end(), {"ls-files", "-z", "--others", "--ignored", "--exclude-standard"});
    auto out = git.ok(ls, {.work_tree = r.workspace_root, .index = tmp});
    if (!out) return std::move(out).take_error();
    for (std::size_t pos = 0; pos < out->size();) {
      std::size_t end = out->find('\0', pos);
      if (end == std::string::npos) end = out->size();
      std::string p = out->substr(pos, end - pos);
      pos = end + 1;
      if (!p.empty() && p.back() != '/' && !gate::in_git_directory(p)) not_added.push_back(std::move(p));
    }
  }
  auto tree = git.ok({"write-tree"}, {.index = tmp});
  if (!tree) return std::move(tree).take_error();
  if (::rename(tmp.c_str(), index.c_str()) != 0) return errno_error("cannot rename", errno, index);
  WorktreeDiff d;
  d.tree = trim_line(*tree);
  // ":<old mode> <new mode> <old name> <new name> <status>\0<path>\0", one per change.
  auto raw = git.ok({"diff-tree", "-r", "-z", "--no-renames", "--raw", "--full-index", r.git_base, d.tree});
  if (!raw) return std::move(raw).take_error();
  const std::string& s = *raw;
  std::size_t pos = 0;
  while (pos < s.size()) {
    std::size_t e1 = s.find('\0', pos);
    if (e1 == std::string::npos) break;
    std::size_t e2 = s.find('\0', e1 + 1);
    if (e2 == std::string::npos) break;
    const std::string head = s.substr(pos, e1 - pos);
    RawChange c;
    c.change.path = s.substr(e1 + 1, e2 - e1 - 1);
    pos = e2 + 1;
    // head: ":100644 100644 <sha> <sha> M"
    std::vector<std::string> f;
    std::size_t p = head.empty() || head[0] != ':' ? std::string::npos : 1;
    while (p != std::string::npos && p <= head.size()) {
      std::size_t sp = head.find(' ', p);
      f.push_back(head.substr(p, sp == std::string::npos ? std::string::npos : sp - p));
      p = sp == std::string::npos ? std::string::npos : sp + 1;
    }
    if (f.size() != 5) return make_error("git diff-tree: unexpected output", head);
    c.base = {f[0], f[2]};
    c.now = {f[1], f[3]};
    c.change.kind = f[4][0] == 'A' ? 'A' : f[4][0] == 'D' ? 'D' : 'M';
    if (c.now.mode == "160000" || c.base.mode == "160000") {
      // git records a repository nested in the workspace (a submodule) as a gitlink, not its files.
      c.change.held = "git: a repository nested in the workspace (git enters it; its files are not part of the change)";
    } else {
      judge(c.change, c.change.kind == 'D' ? 0 : mode_of(c.now));
    }
    d.raw.push_back(std::move(c));
  }
  if (ignored == Ignored::Include) return d;
  // Added files the source's .gitignore files (or the workspace's, should the index hold one
  // from before) ignore: left out. A file the starting commit has is tracked: never.
  std::vector<std::string> added;
  for (const RawChange& c : d.raw)
    if (c.base.absent()) added.push_back(c.change.path);
  auto v = ignored_paths(r, git, added, r.workspace_root, {});
  if (!v) return std::move(v).take_error();
  std::vector<RawChange> kept;
  for (RawChange& c : d.raw) {
    const bool by_source = v->by_source.count(c.change.path), by_jail = v->by_jail.count(c.change.path);
    if (!c.base.absent() || (!by_source && !by_jail)) {
      kept.push_back(std::move(c));
      continue;
    }
    ++d.ignored.files;
    if (!by_source) ++d.ignored.by_jail;
    d.left_out.push_back(std::move(c));
  }
  d.raw = std::move(kept);
  // Those `add` never hashed: by the source's rules, or by the workspace's .gitignore files alone.
  auto nv = ignored_paths(r, git, not_added, "", {});
  if (!nv) return std::move(nv).take_error();
  d.ignored.files += not_added.size();
  d.ignored.by_jail += not_added.size() - nv->by_source.size();
  return d;
}

Result<std::string> publishable_tree(const Runtime& r, const SealedGit& git, const WorktreeDiff& d) {
  std::string input;
  std::vector<const RawChange*> put_back;
  for (const RawChange& c : d.raw)
    if (!c.change.held.empty()) put_back.push_back(&c);
  for (const RawChange& c : d.left_out) put_back.push_back(&c);
  for (const RawChange* cp : put_back) {
    const RawChange& c = *cp;
    // The starting commit's entry again, or none (mode 0 removes the path).
    if (c.base.absent())
      input += "0 " + std::string(c.now.sha.size(), '0') + "\t" + c.change.path + std::string(1, '\0');
    else
      input += c.base.mode + " " + c.base.sha + "\t" + c.change.path + std::string(1, '\0');
  }
  if (input.empty()) return d.tree;
  const std::string tmp = jail_git_work(r) + "/publish-index." + std::to_string(getpid());
  struct Unlink {
    std::string p;
    ~Unlink() { ::unlink(p.c_str()); }
  } unlink_tmp{tmp};
  if (auto rt = git.ok({"read-tree", d.tree}, {.index = tmp}); !rt) return std::move(rt).take_error();
  if (auto u = git.ok({"update-index", "-z", "--index-info"}, {.index = tmp, .input = &input}); !u)
    return std::move(u).take_error();
  auto tree = git.ok({"write-tree"}, {.index = tmp});
  if (!tree) return std::move(tree).take_error();
  return trim_line(*tree);
}

Result<std::string> jail_head(const Runtime& r) {
  auto parts = sys::split_file_path(r.git_dir + "/HEAD");
  if (!parts) return make_error(parts.error().message, r.git_dir);
  auto dir = sys::open_dir_no_symlinks(parts->first);
  if (!dir) return std::move(dir).take_error();
  int fd = openat(dir->get(), "HEAD", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return errno_error("cannot open", errno, r.git_dir + "/HEAD");
  sys::UniqueFd f(fd);
  char buf[512];
  ssize_t n = read(f.get(), buf, sizeof(buf));
  if (n <= 0) return make_error("cannot read the jail's HEAD", r.git_dir + "/HEAD");
  std::string head = trim_line(std::string(buf, static_cast<std::size_t>(n)));
  if (is_object_name(head)) return head;
  if (head.rfind("ref: refs/", 0) != 0) return make_error("the jail's HEAD names no commit", r.git_dir + "/HEAD");
  auto c = git_ok({"--git-dir=" + r.git_common_dir, "rev-parse", "--verify", "--end-of-options", head.substr(5) + "^{commit}"}, "/");
  if (!c) return std::move(c).take_error();
  return trim_line(*c);
}

// ---- diff -------------------------------------------------------------------------------------

namespace {

std::string held_marker(const Change& c) { return "# paddock: held back by sync: " + c.held + "\n"; }

Result<Diff> worktree_diff(const Runtime& r, bool with_patch, bool publishable_only, Ignored ignored) {
  auto git = jail_git(r);
  if (!git) return std::move(git).take_error();
  auto d = worktree_changes(r, *git, ignored);
  if (!d) return std::move(d).take_error();
  Diff out;
  out.ignored = d->ignored;
  for (const RawChange& c : d->raw) out.changes.push_back(c.change);
  if (!with_patch) return out;
  auto pub = publishable_tree(r, *git, *d);
  if (!pub) return std::move(pub).take_error();
  const std::vector<std::string> patch_args = {"diff-tree", "-p", "--binary", "--no-ext-diff", "--no-textconv",
                                               "--no-renames"};
  auto args = patch_args;
  args.insert(args.end(), {r.git_base, *pub});
  auto p = git->ok(args);
  if (!p) return std::move(p).take_error();
  out.patch = std::move(*p);
  if (publishable_only) return out;
  for (const RawChange& c : d->raw) {
    if (c.change.held.empty()) continue;
    auto one = patch_args;
    one.insert(one.end(), {r.git_base, d->tree, "--", c.change.path});
    auto hp = git->ok(one, {.env = {"GIT_LITERAL_PATHSPECS=1"}});
    if (!hp) return std::move(hp).take_error();
    out.patch += held_marker(c.change) + *hp;
  }
  return out;
}

Result<Diff> files_diff(const Runtime& r, std::vector<Change> changes, const std::string& from_root,
                        bool with_patch, bool publishable_only, Ignored ignored) {
  Diff d;
  auto git = jail_git(r);
  if (!git) return std::move(git).take_error();
  if (ignored == Ignored::LeaveOut) {
    auto kept = leave_out_ignored(r, *git, std::move(changes), from_root, d.ignored);
    if (!kept) return std::move(kept).take_error();
    changes = std::move(*kept);
  }
  d.changes = std::move(changes);
  if (!with_patch) return d;
  for (const Change& one : d.changes) {
    if (!one.held.empty() && publishable_only) continue;
    auto p = patch_one(r, *git, one, from_root);
    if (!p) return std::move(p).take_error();
    d.patch += (one.held.empty() ? std::string() : held_marker(one)) + *p;
  }
  return d;
}

}  // namespace

Result<Diff> diff(const Runtime& r, bool with_patch, bool publishable_only, Ignored ignored) {
  switch (r.workspace_mode) {
    case WorkspaceMode::Host:
      return make_error("a host workspace is the source itself: there is nothing to compare",
                        r.source, "use git diff in the source");
    case WorkspaceMode::Overlay: {
      auto c = open_overlay(r);
      if (!c) return std::move(c).take_error();
      auto ch = overlay_changes(*c, r);
      if (!ch) return std::move(ch).take_error();
      return files_diff(r, std::move(*ch), overlay_upper(r), with_patch, publishable_only, ignored);
    }
    case WorkspaceMode::Worktree:
      return worktree_diff(r, with_patch, publishable_only, ignored);
    case WorkspaceMode::Copy: {
      auto c = open_copy(r);
      if (!c) return std::move(c).take_error();
      auto ch = copy_changes(*c, r);
      if (!ch) return std::move(ch).take_error();
      return files_diff(r, std::move(*ch), r.workspace_root, with_patch, publishable_only, ignored);
    }
  }
  return make_error("unknown workspace mode");
}

Result<std::vector<Change>> unsynced(const Runtime& r) {
  if (r.workspace_mode == WorkspaceMode::Host) return std::vector<Change>();
  if (r.workspace_mode != WorkspaceMode::Worktree) {
    auto d = diff(r, false);
    if (!d) return std::move(d).take_error();
    return std::move(d->changes);
  }
  // A worktree's commits stay on its branch: what is lost is what the workspace holds beyond
  // the commit it is at.
  auto git = jail_git(r);
  if (!git) return std::move(git).take_error();
  auto head = jail_head(r);
  if (!head) return std::move(head).take_error();
  Runtime at_head = r;
  at_head.git_base = *head;
  auto d = worktree_changes(at_head, *git);
  if (!d) return std::move(d).take_error();
  std::vector<Change> out;
  for (const RawChange& c : d->raw) out.push_back(c.change);
  return out;
}

}  // namespace paddock::jail
