// An in-memory TreeFs for unit tests: paths map to nodes, a counter is the clock, every change
// moves ctime like the kernel does. Test helpers change the tree as an agent would and describe
// it for comparisons; counters show what the engine read.
#pragma once

#include <map>
#include <string>

#include "undo/tree_fs.h"

namespace paddock::undo {

class FakeTreeFs final : public TreeFs {
 public:
  FakeTreeFs();

  // TreeFs
  Result<std::vector<TreeChild>> list(const std::string& dir) override;
  Result<FileStat> stat(const std::string& path) override;
  Result<sys::UniqueFd> open_file(const std::string& path) override;
  Result<std::string> read_link(const std::string& path) override;
  Result<void> make_dir(const std::string& path, const FileStat& meta) override;
  Result<void> write_file(const std::string& path, int content_fd, const FileStat& meta) override;
  Result<void> make_symlink(const std::string& path, const std::string& target) override;
  Result<void> remove(const std::string& path) override;
  Result<void> set_mode(const std::string& path, mode_t mode) override;
  Result<void> sync() override { return {}; }
  std::int64_t now_ns() override { return clock_; }
  std::int64_t timestamp_granularity_ns() override { return 0; }

  // What a test (standing in for the agent) does. Parents must exist; these abort on misuse.
  void put_file(const std::string& path, const std::string& content, mode_t mode = 0644);
  void put_dir(const std::string& path, mode_t mode = 0755);
  void put_symlink(const std::string& path, const std::string& target);
  void put_fifo(const std::string& path, mode_t mode = 0644);
  void chmod(const std::string& path, mode_t mode);
  // utimensat: the mtime set to MTIME_NS (put back, as `touch -d` does); ctime moves, as always.
  void set_mtime(const std::string& path, std::int64_t mtime_ns);
  std::int64_t mtime(const std::string& path) const { return nodes_.at(path).st.mtime_ns; }
  // Time passes (nothing else happens).
  void advance(std::int64_t ns) { clock_ += ns; }
  void rename(const std::string& from, const std::string& to);  // TO must not exist
  void remove_tree(const std::string& path);
  bool exists(const std::string& path) const { return nodes_.count(path) != 0; }
  const std::string& content(const std::string& path) const { return nodes_.at(path).data; }
  // One line per entry, sorted: path, type, mode, content or target (mtime and inode left out).
  std::string describe() const;
  std::vector<std::string> paths() const;

  int files_opened = 0;  // open_file calls: what the engine read
  int lists = 0;         // list calls: directories the engine walked

 private:
  struct Node {
    FileStat st;
    std::string data;  // file content or symlink target
  };
  Result<Node*> parent_dir(const std::string& path);
  Node& touch(Node& n);
  Node make(EntryType t, mode_t mode);

  std::map<std::string, Node> nodes_;
  std::int64_t clock_ = 1'000'000'000;
  std::uint64_t next_ino_ = 2;
};

}  // namespace paddock::undo
