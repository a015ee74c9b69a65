#include "undo/fake_tree_fs.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <algorithm>
#include <cstdio>

namespace paddock::undo {

FakeTreeFs::FakeTreeFs() { nodes_[""] = make(EntryType::Dir, 0755); }

FakeTreeFs::Node FakeTreeFs::make(EntryType t, mode_t mode) {
  Node n;
  n.st.type = t;
  n.st.mode = mode & 07777;
  n.st.ino = next_ino_++;
  n.st.dev = 1;
  clock_ += 1000;
  n.st.mtime_ns = n.st.ctime_ns = clock_;
  return n;
}

FakeTreeFs::Node& FakeTreeFs::touch(Node& n) {
  clock_ += 1000;
  n.st.ctime_ns = clock_;
  return n;
}

Result<FakeTreeFs::Node*> FakeTreeFs::parent_dir(const std::string& path) {
  // Every component must be a directory: a symlink on the way is refused (O_NOFOLLOW).
  std::string p = parent_rel(path);
  for (std::string a = p;; a = parent_rel(a)) {
    auto it = nodes_.find(a);
    if (it == nodes_.end()) return errno_error("no such directory", ENOENT, a);
    if (it->second.st.type != EntryType::Dir) return errno_error("not a directory", ELOOP, a);
    if (a.empty()) break;
  }
  return &nodes_.at(p);
}

Result<std::vector<TreeChild>> FakeTreeFs::list(const std::string& dir) {
  ++lists;
  if (!dir.empty()) {
    auto pd = parent_dir(dir);
    if (!pd) return std::move(pd).take_error();
  }
  auto it = nodes_.find(dir);
  if (it == nodes_.end()) return errno_error("no such directory", ENOENT, dir);
  if (it->second.st.type != EntryType::Dir) return errno_error("not a directory", ENOTDIR, dir);
  std::vector<TreeChild> out;
  const std::string prefix = dir.empty() ? "" : dir + "/";
  for (auto c = nodes_.lower_bound(prefix); c != nodes_.end(); ++c) {
    if (c->first.compare(0, prefix.size(), prefix) != 0) break;
    if (c->first.empty()) continue;
    std::string rest = c->first.substr(prefix.size());
    if (rest.find('/') != std::string::npos) continue;
    out.push_back({rest, c->second.st});
  }
  return out;
}

Result<FileStat> FakeTreeFs::stat(const std::string& path) {
  if (!path.empty()) {
    auto pd = parent_dir(path);
    if (!pd) return std::move(pd).take_error();
  }
  auto it = nodes_.find(path);
  if (it == nodes_.end()) return errno_error("cannot stat", ENOENT, path);
  return it->second.st;
}

Result<sys::UniqueFd> FakeTreeFs::open_file(const std::string& path) {
  auto st = stat(path);
  if (!st) return std::move(st).take_error();
  if (st->type != EntryType::File) return errno_error("not a regular file", ELOOP, path);
  ++files_opened;
  sys::UniqueFd fd(::memfd_create("fake", MFD_CLOEXEC));
  if (!fd) return errno_error("memfd_create");
  const std::string& c = nodes_.at(path).data;
  if (!c.empty() && ::write(fd.get(), c.data(), c.size()) != static_cast<ssize_t>(c.size())) return errno_error("write");
  ::lseek(fd.get(), 0, SEEK_SET);
  return fd;
}

Result<std::string> FakeTreeFs::read_link(const std::string& path) {
  auto st = stat(path);
  if (!st) return std::move(st).take_error();
  if (st->type != EntryType::Symlink) return errno_error("not a symlink", EINVAL, path);
  return nodes_.at(path).data;
}

Result<void> FakeTreeFs::make_dir(const std::string& path, const FileStat& meta) {
  auto pd = parent_dir(path);
  if (!pd) return std::move(pd).take_error();
  if (nodes_.count(path)) return errno_error("cannot create the directory", EEXIST, path);
  nodes_[path] = make(EntryType::Dir, meta.mode);
  touch(**pd);
  return {};
}

Result<void> FakeTreeFs::write_file(const std::string& path, int content_fd, const FileStat& meta) {
  auto pd = parent_dir(path);
  if (!pd) return std::move(pd).take_error();
  auto it = nodes_.find(path);
  if (it != nodes_.end() && it->second.st.type == EntryType::Dir) return errno_error("rename", EISDIR, path);
  std::string data;
  char buf[4096];
  for (off_t off = 0;;) {
    ssize_t n = ::pread(content_fd, buf, sizeof(buf), off);
    if (n < 0) return errno_error("read");
    if (n == 0) break;
    data.append(buf, n);
    off += n;
  }
  Node n = make(EntryType::File, meta.mode);
  n.data = std::move(data);
  n.st.size = n.data.size();
  n.st.mtime_ns = meta.mtime_ns;
  nodes_[path] = n;
  touch(**pd);
  return {};
}

Result<void> FakeTreeFs::make_symlink(const std::string& path, const std::string& target) {
  auto pd = parent_dir(path);
  if (!pd) return std::move(pd).take_error();
  auto it = nodes_.find(path);
  if (it != nodes_.end() && it->second.st.type == EntryType::Dir) return errno_error("rename", EISDIR, path);
  Node n = make(EntryType::Symlink, 0777);
  n.data = target;
  n.st.size = target.size();
  nodes_[path] = n;
  touch(**pd);
  return {};
}


Result<void> FakeTreeFs::remove(const std::string& path) {
  auto pd = parent_dir(path);
  if (!pd) return std::move(pd).take_error();
  auto it = nodes_.find(path);
  if (it == nodes_.end()) return errno_error("cannot remove", ENOENT, path);
  if (it->second.st.type == EntryType::Dir) {
    auto next = std::next(it);
    if (next != nodes_.end() && rel_at_or_under(next->first, path)) return errno_error("cannot remove", ENOTEMPTY, path);
  }
  nodes_.erase(it);
  touch(**pd);
  return {};
}

Result<void> FakeTreeFs::set_mode(const std::string& path, mode_t mode) {
  auto st = stat(path);
  if (!st) return std::move(st).take_error();
  if (st->type == EntryType::Symlink) return errno_error("chmod", EOPNOTSUPP, path);
  Node& n = nodes_.at(path);
  n.st.mode = mode & 07777;
  touch(n);
  return {};
}

namespace {
[[noreturn]] void misuse(const char* what, const std::string& path) {
  std::fprintf(stderr, "FakeTreeFs: %s: %s\n", what, path.c_str());
  std::abort();
}
}  // namespace

void FakeTreeFs::put_file(const std::string& path, const std::string& content, mode_t mode) {
  if (!parent_dir(path)) misuse("no parent", path);
  auto it = nodes_.find(path);
  if (it != nodes_.end()) {
    if (it->second.st.type != EntryType::File) misuse("not a file", path);
    Node& n = it->second;  // an in-place write: same inode, new mtime and ctime
    n.data = content;
    n.st.size = content.size();
    touch(n);
    n.st.mtime_ns = clock_;
    return;
  }
  Node n = make(EntryType::File, mode);
  n.data = content;
  n.st.size = content.size();
  nodes_[path] = n;
  touch(**parent_dir(path));
}

void FakeTreeFs::set_mtime(const std::string& path, std::int64_t mtime_ns) {
  auto it = nodes_.find(path);
  if (it == nodes_.end()) misuse("no such entry", path);
  touch(it->second);
  it->second.st.mtime_ns = mtime_ns;
}

void FakeTreeFs::put_dir(const std::string& path, mode_t mode) {
  if (!parent_dir(path) || nodes_.count(path)) misuse("cannot mkdir", path);
  nodes_[path] = make(EntryType::Dir, mode);
  touch(**parent_dir(path));
}

void FakeTreeFs::put_fifo(const std::string& path, mode_t mode) {
  if (!parent_dir(path) || nodes_.count(path)) misuse("cannot mkfifo", path);
  nodes_[path] = make(EntryType::Fifo, mode);
  touch(**parent_dir(path));
}

void FakeTreeFs::put_symlink(const std::string& path, const std::string& target) {
  if (!parent_dir(path) || nodes_.count(path)) misuse("cannot symlink", path);
  Node n = make(EntryType::Symlink, 0777);
  n.data = target;
  n.st.size = target.size();
  nodes_[path] = n;
  touch(**parent_dir(path));
}

void FakeTreeFs::chmod(const std::string& path, mode_t mode) {
  if (!set_mode(path, mode)) misuse("cannot chmod", path);
}

void FakeTreeFs::rename(const std::string& from, const std::string& to) {
  if (!nodes_.count(from) || nodes_.count(to) || !parent_dir(to) || rel_at_or_under(to, from)) misuse("cannot rename", from);
  std::vector<std::pair<std::string, Node>> moved;
  for (auto it = nodes_.lower_bound(from); it != nodes_.end() && rel_at_or_under(it->first, from);) {
    moved.emplace_back(to + it->first.substr(from.size()), it->second);
    it = nodes_.erase(it);
  }
  // lower_bound("a") also passes "a.b" before "a/x": collect those under FROM wherever they sit.
  for (auto it = nodes_.begin(); it != nodes_.end();) {
    if (rel_at_or_under(it->first, from)) {
      moved.emplace_back(to + it->first.substr(from.size()), it->second);
      it = nodes_.erase(it);
    } else {
      ++it;
    }
  }
  for (auto& [p, n] : moved) nodes_[p] = n;
  touch(nodes_.at(to));
  touch(**parent_dir(from));
  touch(**parent_dir(to));
}

void FakeTreeFs::remove_tree(const std::string& path) {
  if (path.empty() || !nodes_.count(path)) misuse("cannot remove", path);
  for (auto it = nodes_.begin(); it != nodes_.end();) {
    if (rel_at_or_under(it->first, path)) it = nodes_.erase(it);
    else ++it;
  }
  touch(**parent_dir(path));
}

std::vector<std::string> FakeTreeFs::paths() const {
  std::vector<std::string> out;
  for (const auto& [p, n] : nodes_) out.push_back(p);
  return out;
}

std::string FakeTreeFs::describe() const {
  std::vector<std::string> ps = paths();
  std::sort(ps.begin(), ps.end(), path_less);
  std::string out;
  for (const auto& p : ps) {
    const Node& n = nodes_.at(p);
    char mode[16];
    std::snprintf(mode, sizeof(mode), "%04o", static_cast<unsigned>(n.st.mode));
    out += "/" + p + " " + static_cast<char>(n.st.type) + " " + mode;
    if (n.st.type == EntryType::File || n.st.type == EntryType::Symlink) out += " [" + n.data + "]";
    out += "\n";
  }
  return out;
}

}  // namespace paddock::undo
