// An in-memory FsView for tests: directories, files and symlinks, resolved like realpath(3).
//
//   FakeFs fs;
//   fs.dir("/home/u/proj").file("/home/u/.ssh/id_ed25519").symlink("/bin", "usr/bin");
//
// Parents are created implicitly as directories.
#pragma once

#include <cerrno>
#include <map>
#include <optional>
#include <vector>
#include <string>

#include "paddock/policy.h"
#include "policy/path_util.h"

namespace paddock {

class FakeFs final : public FsView {
 public:
  FakeFs() { nodes_["/"] = {Kind::Dir, {}}; }

  FakeFs& dir(const std::string& p) { return add(p, Kind::Dir, {}); }
  FakeFs& file(const std::string& p) { return add(p, Kind::File, {}); }
  FakeFs& other(const std::string& p) { return add(p, Kind::Other, {}); }
  // `target` may be relative to the link's directory, as in symlink(2).
  FakeFs& symlink(const std::string& p, const std::string& target) {
    return add(p, Kind::Other, target, true);
  }

  Result<std::string> canonical(const std::string& abs_path) const override {
    std::string out = "/";
    // Walk component by component; a symlink's target is spliced in front of what remains, so
    // ".." after a symlink climbs from the target, as in realpath(3).
    std::string pending = abs_path;
    int hops = 0;
    std::size_t i = 0;
    while (true) {
      while (i < pending.size() && pending[i] == '/') ++i;
      if (i >= pending.size()) break;
      std::size_t j = pending.find('/', i);
      if (j == std::string::npos) j = pending.size();
      std::string part = pending.substr(i, j - i);
      std::string remaining = pending.substr(j);
      i = j;
      if (part == ".") continue;
      if (part == "..") {
        out = path::parent(out);
        continue;
      }
      std::string next = path::join(out, part);
      auto it = nodes_.find(next);
      if (it == nodes_.end()) return errno_error("cannot resolve path", ENOENT, abs_path);
      if (it->second.is_link) {
        if (++hops > 40) return errno_error("cannot resolve path", ELOOP, abs_path);
        const std::string& t = it->second.target;
        pending = (t.size() > 0 && t[0] == '/' ? t : path::join(out, t)) + remaining;
        out = "/";
        i = 0;
        continue;
      }
      if (j < pending.size() && it->second.kind != Kind::Dir) {
        return errno_error("cannot resolve path", ENOTDIR, abs_path);
      }
      out = next;
    }
    return out;
  }

  // Like lstat(2): symlinks in the parent are followed, a final symlink is not.
  Kind kind(const std::string& abs_path) const override {
    ++kind_calls;
    std::string n = path::normalize(abs_path);
    if (n == "/") return Kind::Dir;
    auto dir = canonical(path::parent(n));
    if (!dir) return Kind::Missing;
    auto it = nodes_.find(path::join(*dir, n.substr(n.rfind('/') + 1)));
    if (it == nodes_.end()) return Kind::Missing;
    return it->second.kind;
  }

  // Off: behaves like an FsView that cannot list (every lookup is a kind()).
  bool listable = true;
  mutable int kind_calls = 0;  // kind() answered, for tests counting lookups

  std::optional<std::vector<DirEntry>> list(const std::string& abs_dir) const override {
    if (!listable) return std::nullopt;
    auto it = nodes_.find(abs_dir);
    if (it == nodes_.end() || it->second.kind != Kind::Dir || it->second.is_link) return std::nullopt;
    std::vector<DirEntry> out;
    for (const auto& [p, node] : nodes_) {
      if (p != "/" && path::parent(p) == abs_dir) out.push_back({p.substr(p.rfind('/') + 1), node.kind, true});
    }
    return out;
  }

 private:
  struct Node {
    Kind kind;
    std::string target;
    bool is_link = false;
  };

  FakeFs& add(const std::string& p, Kind k, std::string target, bool is_link = false) {
    std::string n = path::normalize(p);
    for (std::string a = path::parent(n); a != "/"; a = path::parent(a)) {
      nodes_.try_emplace(a, Node{Kind::Dir, {}, false});
    }
    nodes_[n] = Node{k, std::move(target), is_link};
    return *this;
  }

  std::map<std::string, Node> nodes_;
};

}  // namespace paddock
