#include "jail/repository_run.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "jail/git_grants.h"
#include "jail/object_files.h"
#include "sys/anchored_dir.h"
#include "sys/display.h"

namespace paddock::jail {
namespace {

std::string parent(const std::string& p) {
  auto s = p.rfind('/');
  return s == 0 || s == std::string::npos ? "/" : p.substr(0, s);
}

}  // namespace

Result<RepositoryRun> RepositoryRun::before(const RepositoryRunSpec& spec) {
  auto format = object_format_of(spec.common_dir);
  if (!format) return std::move(format).take_error();
  auto objects = PrivateObjects::prepare(spec.common_dir + "/objects", spec.store, spec.work, *format);
  if (!objects) return std::move(objects).take_error();
  // Objects a run before this one left in the store (paddock was killed before it could
  // import them) come in first, so that the refs they name are whole again.
  if (auto earlier = objects->import(); !earlier) return std::move(earlier).take_error();
  auto check = ObjectCheck::start(spec.common_dir + "/objects");
  return RepositoryRun(std::move(*objects), std::move(check), RefWatch::before(spec.common_dir, spec.ref_dirs, spec.heads));
}

std::vector<std::string> RepositoryRun::after(bool objects_were_private) const {
  std::vector<std::string> lines;
  if (!objects_were_private) lines = check_.after(objects_.git(), objects_.work());
  auto imported = objects_.import();
  if (!imported) {
    lines.push_back("git: the run's objects were not imported: " + imported.error().describe());
  } else if (!imported->failure.empty()) {
    lines.push_back("git: the run's objects were not imported (" + sys::display(imported->failure) +
                    "): nothing it committed reaches " + objects_.repo_objects());
  }
  for (std::string& l : refs_.after(objects_.git(), objects_.repo_objects())) lines.push_back(std::move(l));
  return lines;
}

std::string jail_git_work(const Runtime& r) { return r.jail_root + "/runtime/git"; }

RepositoryRunSpec jail_repository(const Runtime& r) {
  RepositoryRunSpec spec;
  spec.common_dir = r.git_common_dir;
  spec.ref_dirs = {"refs/heads/paddock"};
  spec.heads = {r.git_dir + "/HEAD"};
  spec.store = r.jail_root + "/objects";
  spec.work = jail_git_work(r);
  return spec;
}

Result<std::optional<RepositoryRunSpec>> repository_of(const std::string& dir, const std::string& git_objects_dir,
                                                       const std::function<bool(const std::string&)>& writable) {
  RepositoryRunSpec spec;
  auto wt = find_linked_worktree(dir);
  if (wt && *wt) {
    spec.common_dir = (*wt)->common_dir;
    spec.heads = {(*wt)->git_dir + "/HEAD"};
  } else {
    for (std::string d = dir;; d = parent(d)) {
      const std::string dotgit = (d == "/" ? "" : d) + "/.git";
      struct stat st;
      if (lstat(dotgit.c_str(), &st) == 0) {
        if (!S_ISDIR(st.st_mode)) return std::optional<RepositoryRunSpec>();
        spec.common_dir = dotgit;
        break;
      }
      if (d == "/") return std::optional<RepositoryRunSpec>();
    }
    spec.heads = {spec.common_dir + "/HEAD"};
  }
  const std::string objects = spec.common_dir + "/objects";
  struct stat st;
  if (stat(objects.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || !writable(objects))
    return std::optional<RepositoryRunSpec>();
  // Every linked worktree's HEAD lies in the common directory too.
  if (DIR* w = opendir((spec.common_dir + "/worktrees").c_str())) {
    while (dirent* e = readdir(w))
      if (e->d_name[0] != '.') spec.heads.push_back(spec.common_dir + "/worktrees/" + e->d_name + "/HEAD");
    closedir(w);
  }
  spec.ref_dirs = {"refs"};
  // One store per repository (by its objects directory's identity), kept between runs.
  const std::string key = std::to_string(static_cast<unsigned long long>(st.st_dev)) + "-" +
                          std::to_string(static_cast<unsigned long long>(st.st_ino));
  if (auto m = private_dir(git_objects_dir); !m) return std::move(m).take_error();
  if (auto m = private_dir(git_objects_dir + "/" + key); !m) return std::move(m).take_error();
  spec.store = git_objects_dir + "/" + key + "/objects";
  spec.work = git_objects_dir + "/" + key + "/paddock";
  return std::optional<RepositoryRunSpec>(std::move(spec));
}

}  // namespace paddock::jail
