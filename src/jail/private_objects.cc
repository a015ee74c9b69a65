#include "jail/private_objects.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <set>

#include "jail/object_files.h"
#include "jail/tree.h"
#include "sys/anchored_dir.h"
#include "sys/unique_fd.h"

namespace paddock::jail {
namespace {

// What git said on stderr, its lines joined (at most a few), or WHAT when it said nothing.
std::string git_says(const std::vector<std::string>& err, const char* what) {
  std::string out;
  for (std::size_t i = 0; i < err.size() && i < 4; ++i) out += (out.empty() ? "" : "; ") + err[i];
  return out.empty() ? std::string(what) : out;
}

// Makes NAME in PARENT a directory (removing whatever non-directory a run left there).
Result<sys::UniqueFd> ensure_dir(int parent, const std::string& name, const std::string& where) {
  struct stat st;
  if (fstatat(parent, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode) &&
      unlinkat(parent, name.c_str(), 0) != 0)
    return errno_error("cannot remove", errno, where);
  if (mkdirat(parent, name.c_str(), 0700) != 0 && errno != EEXIST) return errno_error("cannot create", errno, where);
  int fd = openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return errno_error("cannot open directory", errno, where);
  return sys::UniqueFd(fd);
}


// Copies FROM's regular file NAME into the directory TO as NAME, through a temp name and a
// rename, read-only as git keeps pack files. An existing NAME is kept (same pack).
Result<void> install(int from, const std::string& name, int to, const std::string& where) {
  struct stat st;
  if (fstatat(to, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) return {};
  const std::string tmp = ".tmp-paddock-" + std::to_string(getpid()) + "-" + name;
  unlinkat(to, tmp.c_str(), 0);
  if (!copy_regular(from, name, to, tmp)) {
    int e = errno;
    unlinkat(to, tmp.c_str(), 0);
    return errno_error("cannot write", e, where + "/" + name);
  }
  int fd = openat(to, tmp.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) {
    fchmod(fd, 0444);
    fsync(fd);
    ::close(fd);
  }
  if (renameat(to, tmp.c_str(), to, name.c_str()) != 0) {
    int e = errno;
    unlinkat(to, tmp.c_str(), 0);
    return errno_error("cannot install", e, where + "/" + name);
  }
  return {};
}

}  // namespace

Result<PrivateObjects> PrivateObjects::prepare(const std::string& repo_objects, const std::string& store,
                                               const std::string& work, const std::string& object_format) {
  struct stat st;
  if (stat(repo_objects.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return make_error("not a git objects directory", repo_objects);
  auto s = private_dir(store);
  if (!s) return std::move(s).take_error();
  // What a run left in the store's info/ is never read by paddock, but git inside reads
  // info/alternates: rewritten before every run to name the read-only view, and nothing else.
  auto info = ensure_dir(s->get(), "info", store + "/info");
  if (!info) return std::move(info).take_error();
  if (auto w = keep_file(info->get(), "alternates", std::string(kSourceObjects) + "\n", 0600); !w)
    return std::move(w).take_error();
  for (const char* sub : {kSourceObjects, "pack"})
    if (auto d = ensure_dir(s->get(), sub, store + "/" + sub); !d) return std::move(d).take_error();
  if (auto w = private_dir(work); !w) return std::move(w).take_error();
  auto git = SealedGit::open(work + "/git", {repo_objects}, object_format);
  if (!git) return std::move(git).take_error();
  return PrivateObjects(repo_objects, store, work, std::move(*git));
}

std::vector<SandboxMount> PrivateObjects::mounts() const {
  SandboxMount rw{repo_objects_, store_, Access::ReadWrite, 0, {}, {}};
  SandboxMount ro{repo_objects_ + "/" + kSourceObjects, repo_objects_, Access::Read, 0, {}, {}};
  rw.needs_namespaces = ro.needs_namespaces = true;
  return {rw, ro};
}

Result<Imported> PrivateObjects::import() const { return import_objects(git_, store_, repo_objects_, work_); }

Result<Imported> import_objects(const SealedGit& git, const std::string& from, const std::string& repo_objects,
                                const std::string& work_dir) {
  Imported result;
  auto store = sys::open_dir_no_symlinks(from);
  if (!store) return std::move(store).take_error();
  auto work = sys::open_dir_no_symlinks(work_dir);
  if (!work) return std::move(work).take_error();
  // Scratch: a fresh object directory of paddock's.
  const std::string scratch_name = "import." + std::to_string(getpid());
  const std::string scratch = work_dir + "/" + scratch_name;
  (void)remove_tree_at(work->get(), scratch_name, scratch);
  struct Cleanup {
    int dir;
    std::string name, where;
    ~Cleanup() { (void)remove_tree_at(dir, name, where); }
  } cleanup{work->get(), scratch_name, scratch};
  auto s = ensure_dir(work->get(), scratch_name, scratch);
  if (!s) return std::move(s).take_error();
  auto s_pack = ensure_dir(s->get(), "pack", scratch + "/pack");
  if (!s_pack) return std::move(s_pack).take_error();

  // 1. The store's loose objects and packs, copied. Nothing else of it is looked at.
  struct Loose {
    std::string dir, name;
  };
  std::vector<Loose> loose;
  std::vector<std::string> packs;  // base names
  for (const std::string& d : entries(store->get())) {
    if (d.size() != 2 || !all_hex(d)) continue;
    int fd = openat(store->get(), d.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) continue;
    sys::UniqueFd from(fd);
    sys::UniqueFd to;
    for (const std::string& n : entries(from.get())) {
      if (!loose_name(n)) continue;
      if (!to) {
        auto t = ensure_dir(s->get(), d, scratch + "/" + d);
        if (!t) return std::move(t).take_error();
        to = std::move(*t);
      }
      if (copy_regular(from.get(), n, to.get(), n)) loose.push_back({d, n});
    }
  }
  if (int fd = openat(store->get(), "pack", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC); fd >= 0) {
    sys::UniqueFd from(fd);
    for (const std::string& n : entries(from.get())) {
      const std::string base = pack_base(n, ".pack");
      if (base.empty()) continue;
      if (copy_regular(from.get(), base + ".pack", s_pack->get(), base + ".pack") &&
          copy_regular(from.get(), base + ".idx", s_pack->get(), base + ".idx")) {
        packs.push_back(base);
      } else {
        unlinkat(s_pack->get(), (base + ".pack").c_str(), 0);
        unlinkat(s_pack->get(), (base + ".idx").c_str(), 0);
      }
    }
  }
  if (loose.empty() && packs.empty()) return result;

  // 2. What they claim to hold, less what the repository has by those names already (a name
  // that lies is then simply not imported).
  auto listed = git.run({"cat-file", "--batch-all-objects", "--batch-check=%(objectname)"}, {.objects = scratch});
  if (!listed) return std::move(listed).take_error();
  if (listed->status != 0) {
    auto err = lines_of(listed->err);
    result.failure = "the run's objects cannot be read: " + git_says(err, "git cat-file failed");
    return result;
  }
  const std::vector<std::string> names = lines_of(listed->out);
  auto missing = objects_missing(git, repo_objects, names);
  if (!missing) return std::move(missing).take_error();

  if (!missing->empty()) {
    // 3. Packed from the scratch copy, then indexed in a second scratch object directory whose
    // alternate is the repository (so that git's checks see both the pack's objects and the
    // repository's): every name computed from content, every object checked as fsck does,
    // every link followed.
    std::string input;
    for (const auto& n : *missing) input += n + "\n";
    auto packed = git.run({"pack-objects", "--quiet", scratch + "/out"}, {.objects = scratch, .input = &input});
    if (!packed) return std::move(packed).take_error();
    const auto hash = lines_of(packed->out);
    if (packed->status != 0 || hash.size() != 1 || !all_hex(hash[0])) {
      auto err = lines_of(packed->err);
      result.failure = "the run's objects cannot be packed: " + git_says(err, "git pack-objects failed");
      return result;
    }
    const std::string verify = scratch + "/verify", base = "pack-" + hash[0];
    auto v = ensure_dir(s->get(), "verify", verify);
    if (!v) return std::move(v).take_error();
    auto v_info = ensure_dir(v->get(), "info", verify + "/info");
    if (!v_info) return std::move(v_info).take_error();
    auto v_pack = ensure_dir(v->get(), "pack", verify + "/pack");
    if (!v_pack) return std::move(v_pack).take_error();
    if (auto w = sys::write_file_at(v_info->get(), "alternates", repo_objects + "\n", 0600); !w) return std::move(w).take_error();
    if (renameat(s->get(), ("out-" + hash[0] + ".pack").c_str(), v_pack->get(), (base + ".pack").c_str()) != 0)
      return errno_error("cannot rename", errno, verify);
    auto indexed = git.run({"index-pack", "--strict", "-o", verify + "/pack/" + base + ".idx", verify + "/pack/" + base + ".pack"},
                           {.objects = verify});
    if (!indexed) return std::move(indexed).take_error();
    if (indexed->status != 0) {
      auto err = lines_of(indexed->err);
      result.failure = "the run's objects do not verify: " + git_says(err, "git index-pack failed");
      return result;
    }
    // 4. Installed under the name git gives a pack of that content: the pack, then its index
    // (git takes a pack for present once its .idx is).
    auto repo_pack = sys::open_dir_no_symlinks(repo_objects + "/pack");
    if (!repo_pack) return std::move(repo_pack).take_error();
    if (auto i = install(v_pack->get(), base + ".pack", repo_pack->get(), repo_objects + "/pack"); !i)
      return std::move(i).take_error();
    if (auto i = install(v_pack->get(), base + ".idx", repo_pack->get(), repo_objects + "/pack"); !i)
      return std::move(i).take_error();
    auto still = objects_missing(git, repo_objects, *missing);
    if (!still) return std::move(still).take_error();
    result.objects = missing->size() - still->size();
  }

  // 5. What the repository now has by the store's names leaves the store (it stays readable
  // through the alternate). Objects under a false name, or not imported, stay.
  auto gone = objects_missing(git, repo_objects, names);
  if (!gone) return std::move(gone).take_error();
  const std::set<std::string> absent(gone->begin(), gone->end());
  for (const Loose& l : loose) {
    if (absent.count(l.dir + l.name)) continue;
    if (int fd = openat(store->get(), l.dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC); fd >= 0) {
      unlinkat(fd, l.name.c_str(), 0);
      ::close(fd);
    }
  }
  for (const std::string& base : packs) {
    // The names in our copy of the pack's index (`git show-index`: "<offset> <name> (<crc>)").
    auto idx = read_all(s_pack->get(), base + ".idx");
    if (!idx) continue;
    auto shown = git.run({"show-index"}, {.objects = scratch, .input = &*idx});
    if (!shown || shown->status != 0) continue;
    bool all_there = true;
    for (const std::string& line : lines_of(shown->out)) {
      std::size_t a = line.find(' ');
      std::size_t b = a == std::string::npos ? a : line.find(' ', a + 1);
      if (a == std::string::npos || absent.count(line.substr(a + 1, b == std::string::npos ? b : b - a - 1))) {
        all_there = false;
        break;
      }
    }
    if (!all_there) continue;
    if (int fd = openat(store->get(), "pack", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC); fd >= 0) {
      for (const char* ext : {".idx", ".pack", ".rev", ".bitmap", ".keep", ".promisor", ".mtimes"})
        unlinkat(fd, (base + ext).c_str(), 0);
      ::close(fd);
    }
  }
  return result;
}

}  // namespace paddock::jail
