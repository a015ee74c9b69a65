// Publishing a jail's changes (changes.h): into the source's files (--apply) or as a branch of
// the source repository (--to-branch). A change the gate holds back (Change::held) is never
// published by either; after --apply the gate's check looks at what the write left in the
// source (a repository assembled from pieces that no name gave away) and moves it aside. Every
// git here is a sealed one (sealed_git.h) but the two that write the source repository's ref
// and read its identity, which read only the source's own configuration.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <set>

#include "gate/gate.h"
#include "jail/changes.h"
#include "jail/ignore_rules.h"
#include "jail/private_objects.h"
#include "jail/process.h"
#include "jail/repository_run.h"
#include "sys/anchored_dir.h"
#include "sys/display.h"

namespace paddock::jail {
namespace {

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

Result<Published> refuse_conflicts(const Runtime& r, const std::vector<std::string>& conflicts, const std::string& hint,
                                   std::vector<std::string>* refused) {
  if (refused) *refused = conflicts;
  std::string list;
  for (const auto& p : conflicts) list += "\n  " + sys::display(p);
  return make_error(std::to_string(conflicts.size()) + " file(s) the jail changed were also changed in the source "
                        "since the jail was made; nothing was applied:" + list,
                    r.source, hint);
}

std::string patch_hint(const Runtime& r) {
  return "paddock jail sync " + r.name + " --patch FILE writes the changes as a patch to merge by hand";
}

// Writes the publishable CHANGES (read from FROM_ROOT: the workspace, or the overlay's upper
// directory) into the source, the gate's check around the write. Held ones go to OUT.held.
Result<void> apply_changes(CopyState& c, const Runtime& r, const std::vector<Change>& changes,
                           const std::string& from_root, Published& out) {
  gate::Check check = gate::Check::before_write({{r.source, gate::RootKind::Workspace}});
  Result<void> wrote;
  for (const Change& ch : changes) {
    if (!ch.held.empty()) {
      out.held.push_back(ch);
      continue;
    }
    if (ch.kind == 'D') {
      auto parent_rel = ch.path.find('/') == std::string::npos ? std::string(".") : ch.path.substr(0, ch.path.rfind('/'));
      auto pfd = open_beneath(c.src.get(), parent_rel, O_RDONLY | O_DIRECTORY);
      if (!pfd) {
        wrote = std::move(pfd).take_error();
        break;
      }
      std::string name = ch.path.substr(ch.path.rfind('/') == std::string::npos ? 0 : ch.path.rfind('/') + 1);
      if (unlinkat(pfd->get(), name.c_str(), 0) != 0 && errno != ENOENT) {
        wrote = errno_error("cannot remove", errno, r.source + "/" + ch.path);
        break;
      }
    } else if (auto p = put_into_source(c, r, ch.path, from_root); !p) {
      wrote = std::move(p);
      break;
    }
    out.applied.push_back(ch);
  }
  // Whatever was written, even when a write failed half way, is checked.
  out.left_behind = check.after();
  return wrote;
}

// CHANGES without what the ignore rules leave out (counted into COUNT), unless included.
Result<std::vector<Change>> without_ignored(const Runtime& r, Result<std::vector<Change>> changes, Ignored ignored,
                                            const std::string& jail_root, IgnoredCount& count) {
  if (!changes || ignored == Ignored::Include) return changes;
  auto git = jail_git(r);
  if (!git) return std::move(git).take_error();
  return leave_out_ignored(r, *git, std::move(*changes), jail_root, count);
}

Result<Published> copy_apply(const Runtime& r, std::vector<std::string>* refused, Ignored ignored) {
  auto c = open_copy(r);
  if (!c) return std::move(c).take_error();
  IgnoredCount left_out;
  auto changes = without_ignored(r, copy_changes(*c, r), ignored, r.workspace_root, left_out);
  if (!changes) return std::move(changes).take_error();
  // Refused whole when the source changed underneath any of them.
  std::vector<std::string> conflicts;
  for (const Change& ch : *changes) {
    if (!ch.held.empty()) continue;
    const EntryStat now = lstat_at(c->src.get(), ch.path);
    auto it = c->index.find(ch.path);
    const EntryStat before = it == c->index.end() ? EntryStat{} : c->manifest[it->second].source;
    const bool same = now.type == before.type &&
                      (now.type == 0 || (now.size == before.size && now.mtime_ns == before.mtime_ns &&
                                         now.mode == before.mode && now.ino == before.ino));
    if (!same) conflicts.push_back(ch.path);
  }
  if (!conflicts.empty()) return refuse_conflicts(r, conflicts, patch_hint(r), refused);
  Published out;
  out.ignored = left_out;
  if (auto a = apply_changes(*c, r, *changes, r.workspace_root, out); !a) return std::move(a).take_error();
  // The manifest now takes the synced state as the new starting point.
  std::vector<ManifestEntry> next;
  std::set<std::string> changed;
  for (const Change& ch : out.applied) changed.insert(ch.path);
  for (auto& m : c->manifest)
    if (!changed.count(m.path)) next.push_back(std::move(m));
  for (const Change& ch : out.applied) {
    if (ch.kind == 'D') continue;
    next.push_back({ch.path, lstat_at(c->src.get(), ch.path), lstat_at(c->ws.get(), ch.path)});
  }
  if (auto w = write_manifest(c->runtime.get(), next); !w) return std::move(w).take_error();
  return out;
}

Result<Published> overlay_apply(const Runtime& r, std::vector<std::string>* refused, Ignored ignored) {
  auto c = open_overlay(r);
  if (!c) return std::move(c).take_error();
  IgnoredCount left_out;
  auto changes = without_ignored(r, overlay_changes(*c, r), ignored, overlay_upper(r), left_out);
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
    if (!ch.held.empty()) continue;
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
  if (!conflicts.empty()) return refuse_conflicts(r, conflicts, patch_hint(r), refused);
  Published out;
  out.ignored = left_out;
  if (auto a = apply_changes(*c, r, *changes, overlay_upper(r), out); !a) return std::move(a).take_error();
  // What this sync wrote is the source's new starting point.
  int fd = openat(rt->get(), "source-stamp", O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    futimens(fd, nullptr);
    ::close(fd);
  }
  return out;
}

// The source's entry at REL as git would record it: mode and object name ("000000" when
// absent), hashed as the bytes are (no filter). nullopt: something git cannot record there (a
// directory, a symlink on the way).
std::optional<TreeEntry> source_entry(const SealedGit& git, int src, const std::string& rel) {
  auto fd = open_beneath(src, rel, O_PATH | O_NOFOLLOW);
  if (!fd) return fd.error().sys_errno == ENOENT ? std::optional<TreeEntry>(TreeEntry{}) : std::nullopt;
  struct stat st;
  if (fstat(fd->get(), &st) != 0) return std::nullopt;
  std::string content;
  TreeEntry e;
  if (S_ISLNK(st.st_mode)) {
    char target[4096];
    ssize_t n = readlinkat(fd->get(), "", target, sizeof(target));
    if (n < 0) return std::nullopt;
    content.assign(target, static_cast<std::size_t>(n));
    e.mode = "120000";
  } else if (S_ISREG(st.st_mode)) {
    auto in = open_beneath(src, rel, O_RDONLY | O_NOFOLLOW);
    if (!in) return std::nullopt;
    char buf[1 << 16];
    ssize_t n;
    while ((n = read(in->get(), buf, sizeof(buf))) > 0) content.append(buf, static_cast<std::size_t>(n));
    if (n < 0) return std::nullopt;
    e.mode = (st.st_mode & 0100) ? "100755" : "100644";
  } else {
    return std::nullopt;
  }
  auto sha = git.ok({"hash-object", "--no-filters", "-t", "blob", "--stdin"}, {.input = &content});
  if (!sha) return std::nullopt;
  e.sha = trim_line(*sha);
  return e;
}

// What --apply wrote into the source of a worktree jail, path by path as git records it
// (runtime/git/applied: "<mode> <object>\t<path>\0" per path; paddock's own, no run sees it).
// The conflict check of the next --apply takes these as the source's starting point: the jail's
// own earlier changes are not "changed in the source".
constexpr const char* kAppliedFile = "applied";

std::map<std::string, TreeEntry> read_applied(const Runtime& r) {
  std::map<std::string, TreeEntry> out;
  auto dir = sys::open_dir_no_symlinks(jail_git_work(r));
  if (!dir) return out;
  int fd = openat(dir->get(), kAppliedFile, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return out;
  sys::UniqueFd f(fd);
  std::string s;
  char buf[1 << 15];
  ssize_t n;
  while ((n = read(f.get(), buf, sizeof(buf))) > 0) s.append(buf, static_cast<std::size_t>(n));
  for (std::size_t pos = 0; pos < s.size();) {
    std::size_t end = s.find('\0', pos);
    if (end == std::string::npos) break;
    const std::string rec = s.substr(pos, end - pos);
    pos = end + 1;
    const std::size_t sp = rec.find(' '), tab = rec.find('\t');
    if (sp == std::string::npos || tab == std::string::npos || tab < sp) continue;
    out[rec.substr(tab + 1)] = TreeEntry{rec.substr(0, sp), rec.substr(sp + 1, tab - sp - 1)};
  }
  return out;
}

Result<void> write_applied(const Runtime& r, const std::map<std::string, TreeEntry>& applied) {
  std::string s;
  for (const auto& [path, e] : applied) s += e.mode + " " + e.sha + "\t" + path + std::string(1, '\0');
  auto dir = sys::open_dir_no_symlinks(jail_git_work(r));
  if (!dir) return std::move(dir).take_error();
  return sys::write_file_at(dir->get(), kAppliedFile, s, 0600);
}

bool same_entry(const TreeEntry& a, const TreeEntry& b) { return a.mode == b.mode && (a.absent() || a.sha == b.sha); }

Result<Published> worktree_apply(const Runtime& r, std::vector<std::string>* refused, Ignored ignored) {
  auto git = jail_git(r);
  if (!git) return std::move(git).take_error();
  auto d = worktree_changes(r, *git, ignored);
  if (!d) return std::move(d).take_error();
  CopyState c;
  auto s = sys::open_dir_no_symlinks(r.source);
  if (!s) return std::move(s).take_error();
  auto w = sys::open_dir_no_symlinks(r.workspace_root);
  if (!w) return std::move(w).take_error();
  c.src = std::move(*s);
  c.ws = std::move(*w);
  // Refused when the source's files differ from the commit the jail started from, or from what
  // an earlier --apply wrote there. What the source holds already as the jail has it is not
  // written again.
  std::map<std::string, TreeEntry> applied = read_applied(r);
  std::vector<std::string> conflicts;
  std::vector<Change> changes;
  std::set<std::string> listed;
  for (const RawChange& rc : d->raw) {
    listed.insert(rc.change.path);
    if (!rc.change.held.empty()) {
      changes.push_back(rc.change);
      continue;
    }
    auto now = source_entry(*git, c.src.get(), rc.change.path);
    if (now && same_entry(*now, rc.now)) continue;
    auto before = applied.find(rc.change.path);
    const TreeEntry& expected = before == applied.end() ? rc.base : before->second;
    if (!now || !same_entry(*now, expected)) conflicts.push_back(rc.change.path);
    // Against the source as it is (an earlier --apply may have added what the commit lacks).
    Change ch = rc.change;
    if (now && ch.kind != 'D') ch.kind = now->absent() ? 'A' : 'M';
    changes.push_back(std::move(ch));
  }
  // Paths an earlier --apply wrote that the jail has since put back as the starting commit has
  // them: written back too (the workspace has the commit's version).
  for (const auto& [path, entry] : applied) {
    if (listed.count(path)) continue;
    auto base = git->ok({"ls-tree", "-z", "--full-tree", r.git_base, "--", path}, {.env = {"GIT_LITERAL_PATHSPECS=1"}});
    if (!base) return std::move(base).take_error();
    TreeEntry b;  // "<mode> blob <object>\t<path>\0", or nothing: absent
    if (const std::size_t sp1 = base->find(' '), sp2 = base->find(' ', sp1 + 1), tab = base->find('\t');
        sp1 != std::string::npos && sp2 != std::string::npos && tab != std::string::npos)
      b = {base->substr(0, sp1), base->substr(sp2 + 1, tab - sp2 - 1)};
    auto now = source_entry(*git, c.src.get(), path);
    if (now && same_entry(*now, b)) continue;
    if (!now || !same_entry(*now, entry)) {
      conflicts.push_back(path);
      continue;
    }
    Change back{b.absent() ? 'D' : entry.absent() ? 'A' : 'M', path};
    judge(back, 0);
    changes.push_back(back);
  }
  if (!conflicts.empty())
    return refuse_conflicts(r, conflicts, "paddock jail sync " + r.name + " --to-branch NAME publishes them as a branch to merge",
                            refused);
  Published out;
  out.ignored = d->ignored;
  auto a = apply_changes(c, r, changes, r.workspace_root, out);
  // Recorded even when a write failed half way: what was written is the jail's.
  for (const Change& ch : out.applied)
    if (auto e = source_entry(*git, c.src.get(), ch.path)) applied[ch.path] = *e;
  if (auto wr = write_applied(r, applied); !wr) return std::move(wr).take_error();
  if (!a) return std::move(a).take_error();
  return out;
}

// GIT_AUTHOR_* and GIT_COMMITTER_* for a commit of paddock's, as git is configured for the
// source (its own configuration and the user's, which no run writes; `git var` also takes the
// user's GIT_AUTHOR_NAME and the like from the environment).
Result<std::vector<std::string>> identity(const std::string& common) {
  std::vector<std::string> env;
  for (const char* who : {"AUTHOR", "COMMITTER"}) {
    auto id = git_ok({"--git-dir=" + common, "var", std::string("GIT_") + who + "_IDENT"}, "/");
    if (!id) return make_error(id.error().message, common, "set user.name and user.email (git config --global)");
    // "Name <email> 1700000000 +0100"
    const std::string line = trim_line(*id);
    const std::size_t lt = line.find(" <"), gt = line.rfind("> ");
    if (lt == std::string::npos || gt == std::string::npos || gt < lt) return make_error("git var: unexpected output", line);
    env.push_back(std::string("GIT_") + who + "_NAME=" + line.substr(0, lt));
    env.push_back(std::string("GIT_") + who + "_EMAIL=" + line.substr(lt + 2, gt - lt - 2));
    env.push_back(std::string("GIT_") + who + "_DATE=" + line.substr(gt + 2));
  }
  return env;
}

// Makes branch BRANCH of the source repository at COMMIT (made in the sealed git, whose objects
// come in through the verifying import first). Never moves an existing branch.
Result<void> make_branch(const Runtime& r, const SealedGit& git, const std::string& common, const std::string& branch,
                         const std::string& commit) {
  auto imported = import_objects(git, git.objects(), common + "/objects", jail_git_work(r));
  if (!imported) return std::move(imported).take_error();
  if (!imported->failure.empty()) return make_error("the branch's objects did not verify: " + imported->failure, common);
  auto b = git_ok({"--git-dir=" + common, "update-ref", "-m", "paddock jail " + r.name, "refs/heads/" + branch, commit, ""}, "/");
  if (!b) return std::move(b).take_error();
  return {};
}

// copy and overlay: the jail's publishable patch applied to a throwaway index holding the
// source's HEAD, committed on top of HEAD. A patch that does not apply to HEAD (the source's
// committed files differ from what the jail started from) fails whole.
Result<Published> patch_to_branch(const Runtime& r, const SealedGit& git, const std::string& common,
                                  const std::vector<std::string>& author, const std::string& branch, Ignored ignored) {
  auto d = diff(r, true, /*publishable_only=*/true, ignored);
  if (!d) return std::move(d).take_error();
  Published out;
  out.ignored = d->ignored;
  for (const Change& c : d->changes)
    if (!c.held.empty()) out.held.push_back(c);
  if (d->changes.size() == out.held.size())
    return make_error("the jail changed nothing that can be published: no branch made", r.name);
  auto head = git_ok({"rev-parse", "--verify", "HEAD^{commit}"}, r.source);
  if (!head) return make_error("--to-branch needs a source that is a git repository with a commit", r.source);
  const std::string parent = trim_line(*head);
  const std::string work = jail_git_work(r), tag = std::to_string(getpid());
  const std::string patch = work + "/branch.patch." + tag, index = work + "/branch.index." + tag;
  auto wd = sys::open_dir_no_symlinks(work);
  if (!wd) return std::move(wd).take_error();
  if (auto w = sys::write_file_at(wd->get(), "branch.patch." + tag, d->patch, 0600); !w) return std::move(w).take_error();
  struct Unlink {
    std::vector<std::string> p;
    ~Unlink() {
      for (const auto& f : p) ::unlink(f.c_str());
    }
  } cleanup{{patch, index}};
  if (auto rt = git.ok({"read-tree", parent}, {.index = index}); !rt) return std::move(rt).take_error();
  if (auto ap = git.ok({"apply", "--cached", "--binary", "--", patch}, {.index = index}); !ap)
    return make_error("the jail's changes do not apply to the source's HEAD (" + parent.substr(0, 12) + "): " +
                          ap.error().message,
                      r.source, "paddock jail sync " + r.name + " --patch FILE, and merge it by hand");
  auto tree = git.ok({"write-tree"}, {.index = index});
  if (!tree) return std::move(tree).take_error();
  auto c = git.ok({"commit-tree", trim_line(*tree), "-p", parent, "-m", "paddock jail " + r.name + ": the jail's changes"},
                  {.env = author});
  if (!c) return std::move(c).take_error();
  out.commit = trim_line(*c);
  if (auto b = make_branch(r, git, common, branch, out.commit); !b) return std::move(b).take_error();
  return out;
}

// worktree: the jail's own commits (in the source since their verifying import), and one on
// top for what the workspace holds beyond them.
Result<Published> worktree_to_branch(const Runtime& r, const SealedGit& git, const std::vector<std::string>& author,
                                     const std::string& branch, Ignored ignored) {
  // Objects a run left behind (paddock was killed before it imported them) come in now.
  auto format = object_format_of(r.git_common_dir);
  if (!format) return std::move(format).take_error();
  auto objects = PrivateObjects::prepare(r.git_common_dir + "/objects", r.jail_root + "/objects", jail_git_work(r), *format);
  if (!objects) return std::move(objects).take_error();
  if (auto imported = objects->import(); !imported) return std::move(imported).take_error();
  auto head = jail_head(r);
  if (!head) return std::move(head).take_error();
  std::string input = *head + "\n^" + r.git_base + "\n";
  if (auto walked = git.run({"rev-list", "--objects", "--quiet", "--stdin"},
                            {.objects = r.git_common_dir + "/objects", .input = &input});
      !walked || walked->status != 0)
    return make_error("the jail's commits are not all in the source repository (their objects did not verify): "
                      "no branch made",
                      *head, "paddock jail diff " + r.name + " shows the work; --patch FILE writes it");
  auto d = worktree_changes(r, git, ignored);
  if (!d) return std::move(d).take_error();
  auto tree = publishable_tree(r, git, *d);
  if (!tree) return std::move(tree).take_error();
  Published out;
  out.ignored = d->ignored;
  for (const RawChange& c : d->raw)
    if (!c.change.held.empty()) out.held.push_back(c.change);
  auto head_tree = git.ok({"rev-parse", "--verify", *head + "^{tree}"});
  if (!head_tree) return std::move(head_tree).take_error();
  out.commit = *head;
  if (trim_line(*head_tree) != *tree) {
    auto c = git.ok({"commit-tree", *tree, "-p", *head, "-m",
                     out.held.empty() ? "paddock jail " + r.name + ": uncommitted work from the jail"
                                      : "paddock jail " + r.name + ": uncommitted work from the jail, without what "
                                                                     "paddock holds back"},
                    {.env = author});
    if (!c) return std::move(c).take_error();
    out.commit = trim_line(*c);
  }
  if (auto b = make_branch(r, git, r.git_common_dir, branch, out.commit); !b) return std::move(b).take_error();
  return out;
}

}  // namespace

Result<Published> sync_to_branch(const Runtime& r, const std::string& branch, Ignored ignored) {
  if (r.workspace_mode == WorkspaceMode::Host)
    return make_error("a host workspace is the source itself: commit there", r.source);
  if (branch.empty() || branch[0] == '-') return make_error("invalid branch name", branch);
  const std::string common = source_common_dir(r);
  if (common.empty()) return make_error("--to-branch needs a source that is a git repository with a commit", r.source);
  if (auto chk = git_ok({"--git-dir=" + common, "check-ref-format", "--branch", branch}, "/"); !chk)
    return make_error("invalid branch name", branch);
  auto author = identity(common);
  if (!author) return std::move(author).take_error();
  auto git = jail_git(r);
  if (!git) return std::move(git).take_error();
  if (r.workspace_mode == WorkspaceMode::Worktree) return worktree_to_branch(r, *git, *author, branch, ignored);
  return patch_to_branch(r, *git, common, *author, branch, ignored);
}

Result<Published> sync_apply(const Runtime& r, std::vector<std::string>* refused, Ignored ignored) {
  switch (r.workspace_mode) {
    case WorkspaceMode::Copy:
      return copy_apply(r, refused, ignored);
    case WorkspaceMode::Overlay:
      return overlay_apply(r, refused, ignored);
    case WorkspaceMode::Worktree:
      return worktree_apply(r, refused, ignored);
    case WorkspaceMode::Host:
      return make_error("a host workspace is the source itself: its changes are there already", r.source);
  }
  return make_error("unknown workspace mode");
}

}  // namespace paddock::jail
