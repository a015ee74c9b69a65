#include "jail/ref_watch.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "jail/tree.h"
#include "sys/anchored_dir.h"
#include "sys/display.h"
#include "sys/unique_fd.h"

namespace paddock::jail {
namespace {

constexpr std::size_t kMaxRefSize = 4096;

// A ref file's content without its line end, or nullopt when it is not a small regular file.
std::optional<std::string> read_ref(int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || static_cast<std::size_t>(st.st_size) > kMaxRefSize)
    return std::nullopt;
  char buf[kMaxRefSize + 1];
  ssize_t n = read(fd, buf, sizeof(buf));
  if (n < 0) return std::nullopt;
  std::string s(buf, static_cast<std::size_t>(n));
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

constexpr const char* kNotARef = "\x01(not a ref file)";

bool starts_with(const std::string& s, std::string_view p) { return s.compare(0, p.size(), p) == 0; }

}  // namespace

RefWatch RefWatch::before(const std::string& common_dir, const std::vector<std::string>& ref_dirs,
                          const std::vector<std::string>& heads) {
  RefWatch w;
  w.common_dir_ = common_dir;
  w.ref_dirs_ = ref_dirs;
  w.heads_ = heads;
  w.before_ = w.read();
  return w;
}

std::map<std::string, std::string> RefWatch::read() const {
  std::map<std::string, std::string> out;
  for (const std::string& d : ref_dirs_) {
    const std::string dir = common_dir_ + "/" + d;
    auto fd = sys::open_dir_no_symlinks(dir);
    if (!fd) continue;
    (void)walk(fd->get(), dir, [&](const std::string& rel, const struct stat& st) {
      if (S_ISDIR(st.st_mode)) return;
      const std::string path = dir + "/" + rel;
      if (!S_ISREG(st.st_mode)) {
        out[path] = kNotARef;
        return;
      }
      auto f = open_beneath(fd->get(), rel, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
      auto content = f ? read_ref(f->get()) : std::nullopt;
      out[path] = content ? *content : kNotARef;
    });
  }
  for (const std::string& h : heads_) {
    auto parts = sys::split_file_path(h);
    if (!parts) continue;
    auto dir = sys::open_dir_no_symlinks(parts->first);
    if (!dir) continue;
    int fd = openat(dir->get(), parts->second.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
      struct stat st;
      if (fstatat(dir->get(), parts->second.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) out[h] = kNotARef;
      continue;
    }
    sys::UniqueFd f(fd);
    auto content = read_ref(f.get());
    out[h] = content ? *content : kNotARef;
  }
  return out;
}

std::vector<std::string> RefWatch::after(const SealedGit& git, const std::string& repo_objects) const {
  std::vector<std::string> lines;
  const auto now = read();
  if (now == before_) return lines;
  // The tips the repository had bound the walk: only what the run added is visited.
  std::vector<std::string> olds;
  for (const auto& [path, content] : before_)
    if (is_object_name(content)) olds.push_back(content);
  std::sort(olds.begin(), olds.end());
  olds.erase(std::unique(olds.begin(), olds.end()), olds.end());
  if (auto gone = objects_missing(git, repo_objects, olds)) {
    for (const std::string& g : *gone) olds.erase(std::find(olds.begin(), olds.end(), g));
  }
  for (const auto& [path, content] : now) {
    auto was = before_.find(path);
    if (was != before_.end() && was->second == content) continue;
    const bool head = std::find(heads_.begin(), heads_.end(), path) != heads_.end();
    const std::string name = head || !starts_with(path, common_dir_ + "/") ? path : path.substr(common_dir_.size() + 1);
    std::string why;
    if (starts_with(name, "refs/replace/")) {
      why = "a replace ref makes git show another object in place of the one it names";
    } else if (starts_with(content, "ref: ")) {
      const std::string target = content.substr(5);
      if (!head || !starts_with(target, "refs/") || target.find("..") != std::string::npos)
        why = "a symbolic ref";
    } else if (is_object_name(content)) {
      std::string input = content + "\n";
      for (const std::string& o : olds) input += "^" + o + "\n";
      auto walked = git.run({"rev-list", "--objects", "--quiet", "--stdin"}, {.objects = repo_objects, .input = &input});
      if (!walked || walked->status != 0)
        why = "it names " + content.substr(0, 12) +
              ", which the repository does not have with everything it reaches (its objects did not verify)";
    } else {
      why = "not a ref";
    }
    if (why.empty()) continue;
    // Put back (the run is over; nothing is followed on the way).
    std::string done = "removed";
    auto parts = sys::split_file_path(path);
    if (parts) {
      if (auto dir = sys::open_dir_no_symlinks(parts->first)) {
        unlinkat(dir->get(), parts->second.c_str(), 0);
        if (was != before_.end() && was->second != kNotARef) {
          if (sys::write_file_at(dir->get(), parts->second, was->second + "\n", 0644))
            done = "put back to " + (is_object_name(was->second) ? was->second.substr(0, 12) : sys::display(was->second));
          else
            done = "removed (it could not be put back)";
        }
      } else {
        done = "left as it is (" + dir.error().describe() + ")";
      }
    }
    lines.push_back("git: " + sys::display(name) + " not published: " + why + "; " + done);
  }
  return lines;
}

}  // namespace paddock::jail
