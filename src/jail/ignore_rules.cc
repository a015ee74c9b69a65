// The source's ignore rules over a jail's changes (ignore_rules.h).
#include "jail/ignore_rules.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "jail/changes.h"
#include "jail/object_files.h"
#include "jail/process.h"
#include "jail/repository_run.h"
#include "jail/tree.h"
#include "sys/anchored_dir.h"
#include "sys/unique_fd.h"

namespace paddock::jail {
namespace {

// A rule file larger than this is not read (git itself reads up to 100 MiB; no real one is).
constexpr std::size_t kMaxRuleFile = 1 << 20;

// The regular file REL beneath DIRFD, no link followed anywhere; "" when absent, not a regular
// file, or too large.
std::string read_rule_file(int dirfd, const std::string& rel) {
  auto fd = open_beneath(dirfd, rel, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  if (!fd) return {};
  struct stat st;
  if (fstat(fd->get(), &st) != 0 || !S_ISREG(st.st_mode) || static_cast<std::size_t>(st.st_size) > kMaxRuleFile)
    return {};
  std::string text;
  char buf[1 << 14];
  ssize_t n;
  while ((n = read(fd->get(), buf, sizeof(buf))) > 0 && text.size() <= kMaxRuleFile)
    text.append(buf, static_cast<std::size_t>(n));
  return text;
}

// A file of the user's, named by a path (core.excludesFile): read as the user, following links
// as git does.
std::string read_user_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return {};
  sys::UniqueFd f(fd);
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || static_cast<std::size_t>(st.st_size) > kMaxRuleFile) return {};
  std::string text;
  char buf[1 << 14];
  ssize_t n;
  while ((n = read(fd, buf, sizeof(buf))) > 0) text.append(buf, static_cast<std::size_t>(n));
  return text;
}

std::string parent_of(const std::string& p) {
  const std::size_t slash = p.rfind('/');
  return slash == std::string::npos ? std::string() : p.substr(0, slash);
}

// A tree of paddock's at WHERE (fresh): every directory on the way to each of PATHS, holding
// the .gitignore file FROM (a directory descriptor; -1 for none) has there.
Result<void> build_rules_tree(const std::string& where, int from, const std::vector<std::string>& paths) {
  auto root = private_dir(where);
  if (!root) return std::move(root).take_error();
  std::set<std::string> dirs = {""};
  for (const std::string& p : paths)
    for (std::string d = parent_of(p); !d.empty() && dirs.insert(d).second; d = parent_of(d)) {
    }
  for (const std::string& d : dirs) {  // parents before children (sorted)
    if (!d.empty() && mkdirat(root->get(), d.c_str(), 0700) != 0 && errno != EEXIST)
      return errno_error("cannot create", errno, where + "/" + d);
    if (from < 0) continue;
    const std::string rel = d.empty() ? ".gitignore" : d + "/.gitignore";
    const std::string text = read_rule_file(from, rel);
    if (text.empty()) continue;
    auto dir = d.empty() ? sys::open_dir_no_symlinks(where) : open_beneath(root->get(), d, O_RDONLY | O_DIRECTORY);
    if (!dir) return std::move(dir).take_error();
    if (auto w = sys::write_file_at(dir->get(), ".gitignore", text, 0600); !w) return std::move(w).take_error();
  }
  return {};
}

// Of PATHS, those the rules in the tree RULES (and the exclude file EXCLUDES, "" for none) ignore.
Result<std::set<std::string>> check_ignore(const SealedGit& git, const std::string& rules, const std::string& excludes,
                                           const std::vector<std::string>& paths) {
  // "./PATH": git reads no pathspec magic (":(...)", ":!") at the start of a path a run named
  // (check-ignore refuses GIT_LITERAL_PATHSPECS), and says the path back as given.
  std::string input;
  for (const std::string& p : paths) input += "./" + p + std::string(1, '\0');
  std::vector<std::string> args;
  if (!excludes.empty()) args = {"-c", "core.excludesFile=" + excludes};
  args.insert(args.end(), {"check-ignore", "--no-index", "-z", "--stdin"});
  auto res = git.run(args, {.work_tree = rules, .input = &input});
  if (!res) return std::move(res).take_error();
  // 0: some are ignored, 1: none is.
  if (res->status != 0 && res->status != 1)
    return make_error("git check-ignore failed: " + trim_line(res->err), rules);
  std::set<std::string> out;
  const std::string& s = res->out;
  for (std::size_t pos = 0; pos < s.size();) {
    std::size_t end = s.find('\0', pos);
    if (end == std::string::npos) end = s.size();
    if (end > pos + 2 && s.compare(pos, 2, "./") == 0) out.insert(s.substr(pos + 2, end - pos - 2));
    pos = end + 1;
  }
  return out;
}

}  // namespace

std::string source_excludes(const Runtime& r) {
  std::string text;
  if (const std::string common = source_common_dir(r); !common.empty()) {
    if (auto d = sys::open_dir_no_symlinks(common); d) text += read_rule_file(d->get(), "info/exclude") + "\n";
  }
  // core.excludesFile as git in the source resolves it (the repository's, the user's global
  // config), else git's default $XDG_CONFIG_HOME/git/ignore.
  std::string file;
  if (auto f = git_ok({"config", "--path", "core.excludesFile"}, r.source); f) file = trim_line(*f);
  if (file.empty()) {
    const char* xdg = std::getenv("XDG_CONFIG_HOME");
    const char* home = std::getenv("HOME");
    if (xdg && *xdg == '/') file = std::string(xdg) + "/git/ignore";
    else if (home && *home == '/') file = std::string(home) + "/.config/git/ignore";
  }
  if (!file.empty()) text += read_user_file(file) + "\n";
  return text;
}

Result<std::set<std::string>> source_head_files(const Runtime& r, const SealedGit& git) {
  std::set<std::string> out;
  if (source_common_dir(r).empty()) return out;
  auto head = git_ok({"rev-parse", "--verify", "-q", "HEAD^{commit}"}, r.source);
  if (!head) return out;  // no commit yet: nothing is tracked
  auto files = git.ok({"ls-tree", "-r", "-z", "--name-only", "--full-tree", trim_line(*head)});
  if (!files) return std::move(files).take_error();
  const std::string& s = *files;
  for (std::size_t pos = 0; pos < s.size();) {
    std::size_t end = s.find('\0', pos);
    if (end == std::string::npos) end = s.size();
    if (end > pos) out.insert(s.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

Result<IgnoreVerdict> ignored_paths(const Runtime& r, const SealedGit& git, const std::vector<std::string>& paths,
                                    const std::string& jail_root, const std::set<std::string>& tracked) {
  IgnoreVerdict v;
  // A path under a directory named .gitignore (a run can make one) cannot sit in a rules tree
  // beside its parent's .gitignore file: never left out (the safe side: it is shown, and judged).
  auto under_gitignore_dir = [](const std::string& p) {
    return p.rfind(".gitignore/", 0) == 0 || p.find("/.gitignore/") != std::string::npos;
  };
  std::vector<std::string> candidates;
  for (const std::string& p : paths)
    if (!tracked.count(p) && !under_gitignore_dir(p)) candidates.push_back(p);
  if (candidates.empty()) return v;
  const std::string work = jail_git_work(r);
  if (auto w = private_dir(work); !w) return std::move(w).take_error();
  auto wd = sys::open_dir_no_symlinks(work);
  if (!wd) return std::move(wd).take_error();
  const std::string name = "ignore." + std::to_string(getpid());
  (void)remove_tree_at(wd->get(), name, work + "/" + name);  // a killed run's
  struct Remove {
    int dir;
    std::string name, where;
    ~Remove() { (void)remove_tree_at(dir, name, where); }
  } cleanup{wd->get(), name, work + "/" + name};
  if (auto d = private_dir(work + "/" + name); !d) return std::move(d).take_error();
  const std::string base = work + "/" + name;

  // The source's rules: its .gitignore files and its exclude file.
  auto src = sys::open_dir_no_symlinks(r.source);
  if (!src) return std::move(src).take_error();
  if (auto b = build_rules_tree(base + "/source", src->get(), candidates); !b) return std::move(b).take_error();
  auto bd = sys::open_dir_no_symlinks(base);
  if (!bd) return std::move(bd).take_error();
  if (auto w = sys::write_file_at(bd->get(), "exclude", source_excludes(r), 0600); !w) return std::move(w).take_error();
  auto s = check_ignore(git, base + "/source", base + "/exclude", candidates);
  if (!s) return std::move(s).take_error();
  v.by_source = std::move(*s);

  // The jail's .gitignore files: only to leave more out.
  if (!jail_root.empty()) {
    auto jr = sys::open_dir_no_symlinks(jail_root);
    if (!jr) return std::move(jr).take_error();
    std::vector<std::string> rest;
    for (const std::string& p : candidates)
      if (!v.by_source.count(p)) rest.push_back(p);
    if (!rest.empty()) {
      if (auto b = build_rules_tree(base + "/jail", jr->get(), rest); !b) return std::move(b).take_error();
      auto j = check_ignore(git, base + "/jail", "", rest);
      if (!j) return std::move(j).take_error();
      v.by_jail = std::move(*j);
    }
  }
  return v;
}

Result<std::vector<Change>> leave_out_ignored(const Runtime& r, const SealedGit& git, std::vector<Change> changes,
                                              const std::string& jail_root, IgnoredCount& count) {
  if (changes.empty()) return changes;
  auto tracked = source_head_files(r, git);
  if (!tracked) return std::move(tracked).take_error();
  std::vector<std::string> paths;
  for (const Change& c : changes) paths.push_back(c.path);
  auto v = ignored_paths(r, git, paths, jail_root, *tracked);
  if (!v) return std::move(v).take_error();
  std::vector<Change> kept;
  for (Change& c : changes) {
    if (v->by_source.count(c.path)) {
      ++count.files;
    } else if (v->by_jail.count(c.path)) {
      ++count.files;
      ++count.by_jail;
    } else {
      kept.push_back(std::move(c));
    }
  }
  return kept;
}

}  // namespace paddock::jail
