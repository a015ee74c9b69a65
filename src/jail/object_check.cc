#include "jail/object_check.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <set>

#include "jail/object_files.h"
#include "jail/tree.h"
#include "sys/anchored_dir.h"
#include "sys/unique_fd.h"

namespace paddock::jail {
namespace {

// The object names in a pack index (`git show-index`: "<offset> <name> (<crc>)" per object).
std::optional<std::vector<std::string>> index_lines(const SealedGit& git, int dirfd, const std::string& idx) {
  auto data = read_all(dirfd, idx);
  if (!data) return std::nullopt;
  auto shown = git.run({"show-index"}, {.input = &*data});
  if (!shown || shown->status != 0) return std::nullopt;
  return lines_of(shown->out);
}

// The true names of the objects whose files are in SCRATCH's fan-out directories and which
// claim NAMES: packed, and indexed from their content.
std::set<std::string> true_names(const SealedGit& git, int scratch_fd, const std::string& scratch,
                                 const std::vector<std::string>& names) {
  std::set<std::string> out;
  std::string input;
  for (const auto& n : names) input += n + "\n";
  auto packed = git.run({"pack-objects", "--quiet", scratch + "/check"}, {.objects = scratch, .input = &input});
  if (!packed || packed->status != 0) return out;
  const auto hash = lines_of(packed->out);
  if (hash.size() != 1) return out;
  const std::string pack = "check-" + hash[0] + ".pack";
  auto indexed = git.run({"index-pack", "-o", scratch + "/true.idx", scratch + "/" + pack}, {.objects = scratch});
  if (indexed && indexed->status == 0) {
    if (auto lines = index_lines(git, scratch_fd, "true.idx"))
      for (const std::string& l : *lines) {
        const auto a = l.find(' '), b = l.find(' ', a + 1);
        if (a != std::string::npos) out.insert(l.substr(a + 1, b == std::string::npos ? b : b - a - 1));
      }
  }
  for (const std::string& f : {pack, "check-" + hash[0] + ".idx", std::string("true.idx")}) unlinkat(scratch_fd, f.c_str(), 0);
  return out;
}

}  // namespace

ObjectCheck ObjectCheck::start(const std::string& repo_objects) {
  ObjectCheck c;
  c.objects_ = repo_objects;
  c.since_.start();
  return c;
}

std::vector<std::string> ObjectCheck::after(const SealedGit& git, const std::string& work) const {
  std::vector<std::string> lines;
  auto dir = sys::open_dir_no_symlinks(objects_);
  if (!dir) return lines;
  struct Loose {
    std::string dir, name;
  };
  std::vector<Loose> loose;
  std::set<std::string> packs;
  std::vector<std::string> caches;
  struct stat st;
  for (const std::string& d : entries(dir->get())) {
    if (d.size() != 2 || !all_hex(d)) continue;
    int fd = openat(dir->get(), d.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) continue;
    sys::UniqueFd fan(fd);
    for (const std::string& n : entries(fan.get()))
      if (loose_name(n) && fstatat(fan.get(), n.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && since_.changed(st))
        loose.push_back({d, n});
  }
  sys::UniqueFd pack_dir(openat(dir->get(), "pack", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (pack_dir) {
    for (const std::string& n : entries(pack_dir.get())) {
      if (fstatat(pack_dir.get(), n.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !since_.changed(st)) continue;
      std::string base = pack_base(n, ".pack");
      if (base.empty()) base = pack_base(n, ".idx");
      if (!base.empty()) {
        packs.insert(base);
      } else if (n.rfind("multi-pack-index", 0) == 0 || n.ends_with(".bitmap") || n.ends_with(".rev") ||
                 n.ends_with(".mtimes")) {
        caches.push_back(n);
      }
    }
  }
  if (loose.empty() && packs.empty() && caches.empty()) return lines;

  auto wd = sys::open_dir_no_symlinks(work);
  if (!wd) return {"git: the objects the run wrote in " + objects_ + " could not be checked: " + wd.error().describe()};
  const std::string name = "check." + std::to_string(getpid()), scratch = work + "/" + name;
  (void)remove_tree_at(wd->get(), name, scratch);
  if (mkdirat(wd->get(), name.c_str(), 0700) != 0) return {"git: cannot create " + scratch};
  struct Cleanup {
    int dir;
    std::string name, where;
    ~Cleanup() { (void)remove_tree_at(dir, name, where); }
  } cleanup{wd->get(), name, scratch};
  sys::UniqueFd s(openat(wd->get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!s) return {"git: cannot open " + scratch};

  // Packs: the index must be the one the pack's own content gives.
  for (const std::string& base : packs) {
    bool ok = copy_regular(pack_dir.get(), base + ".pack", s.get(), "p.pack") &&
              copy_regular(pack_dir.get(), base + ".idx", s.get(), "p.idx");
    if (ok) {
      auto indexed = git.run({"index-pack", "-o", scratch + "/c.idx", scratch + "/p.pack"}, {.objects = scratch});
      auto claimed = index_lines(git, s.get(), "p.idx");
      auto computed = index_lines(git, s.get(), "c.idx");
      ok = indexed && indexed->status == 0 && claimed && computed && *claimed == *computed;
    }
    for (const char* f : {"p.pack", "p.idx", "c.idx"}) unlinkat(s.get(), f, 0);
    if (ok) continue;
    for (const char* ext : {".idx", ".pack"}) {
      struct stat ps;
      const std::string n = base + ext;
      if (fstatat(pack_dir.get(), n.c_str(), &ps, AT_SYMLINK_NOFOLLOW) != 0) continue;
      lines.push_back("git: " + objects_ + "/pack/" + n +
                      ": a pack the run wrote or changed that does not match its index (git would read other "
                      "objects under its names): " +
                      gate::move_aside(pack_dir.get(), n, objects_ + "/pack/" + n, "git reads objects through it"));
    }
  }

  // Loose objects: the content must hash to the name.
  std::vector<std::string> names;
  for (const Loose& l : loose) {
    if (mkdirat(s.get(), l.dir.c_str(), 0700) != 0 && errno != EEXIST) continue;
    sys::UniqueFd from(openat(dir->get(), l.dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    sys::UniqueFd to(openat(s.get(), l.dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (from && to && copy_regular(from.get(), l.name, to.get(), l.name)) names.push_back(l.dir + l.name);
  }
  std::set<std::string> good = true_names(git, s.get(), scratch, names);
  if (good.size() < names.size()) {
    // One damaged file fails the whole batch: then one at a time.
    for (const std::string& n : names)
      if (!good.count(n) && true_names(git, s.get(), scratch, {n}).count(n)) good.insert(n);
  }
  for (const Loose& l : loose) {
    if (good.count(l.dir + l.name)) continue;
    sys::UniqueFd fan(openat(dir->get(), l.dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!fan) continue;
    const std::string path = objects_ + "/" + l.dir + "/" + l.name;
    lines.push_back("git: " + path +
                    ": an object the run wrote or rewrote whose content is not what its name says (git would "
                    "read it in place of the real one): " +
                    gate::move_aside(fan.get(), l.name, path, "git reads it as the object it names"));
  }

  // Caches git keeps beside packs, which a run could have written to send names elsewhere.
  for (const std::string& n : caches)
    lines.push_back("git: " + objects_ + "/pack/" + n + ": an index git keeps beside packs, written by the run: " +
                    gate::move_aside(pack_dir.get(), n, objects_ + "/pack/" + n, "git finds objects through it"));
  return lines;
}

}  // namespace paddock::jail
