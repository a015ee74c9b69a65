#include "undo/tree_listing.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <memory>
#include <optional>
#include <mutex>
#include <thread>

#include "sys/syscalls.h"
#include "sys/unique_fd.h"

namespace paddock::undo {

FileStat file_stat_from(const struct stat& st) {
  FileStat f;
  if (S_ISREG(st.st_mode)) f.type = EntryType::File;
  else if (S_ISDIR(st.st_mode)) f.type = EntryType::Dir;
  else if (S_ISLNK(st.st_mode)) f.type = EntryType::Symlink;
  else if (S_ISFIFO(st.st_mode)) f.type = EntryType::Fifo;
  else f.type = EntryType::Other;
  f.mode = st.st_mode & 07777;
  f.size = static_cast<std::uint64_t>(st.st_size);
  f.mtime_ns = std::int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  f.ctime_ns = std::int64_t(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
  f.ino = st.st_ino;
  f.dev = st.st_dev;
  f.uid = st.st_uid;
  f.gid = st.st_gid;
  return f;
}

unsigned listing_threads() {
  return std::min(4u, std::max(1u, std::thread::hardware_concurrency()));
}

namespace {

// The kernel's struct linux_dirent64.
struct Dirent64 {
  ino64_t d_ino;
  off64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[];
};

struct Job {
  std::shared_ptr<sys::UniqueFd> parent;  // null: the root
  std::string name, path;
  int depth = 0;
};

// DIR's children with their lstat, sorted by name (RealTreeFs::list's answer, errors included).
Result<std::vector<TreeChild>> read_dir(int fd, const std::string& where_dir, const std::string& path) {
  auto out = read_children(fd, path.empty() ? where_dir : where_dir + "/" + path);
  if (out) std::sort(out->begin(), out->end(), [](const TreeChild& a, const TreeChild& b) { return a.name < b.name; });
  return out;
}

}  // namespace

Result<std::vector<TreeChild>> read_children(int fd, const std::string& shown) {
  std::vector<TreeChild> out;
  alignas(8) char buf[1 << 15];
  for (;;) {
    long got = sys::retry_eintr([&] { return sys::getdents64(fd, buf, sizeof(buf)); });
    if (got < 0) return errno_error("cannot read", errno, shown);
    if (got == 0) break;
    for (long off = 0; off < got;) {
      const auto* de = reinterpret_cast<const Dirent64*>(buf + off);
      off += de->d_reclen;
      const char* n = de->d_name;
      if (n[0] == '.' && (n[1] == 0 || (n[1] == '.' && n[2] == 0))) continue;
      struct stat st;
      if (::fstatat(fd, n, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT) continue;  // gone since it was listed
        return errno_error("cannot stat", errno, shown + "/" + n);
      }
      out.push_back({n, file_stat_from(st)});
    }
  }
  return out;
}

Listings list_tree(int root_fd, const std::string& root_name, const ListingSkip& skip, int max_depth, unsigned threads,
                   std::size_t max_entries) {
  Listings done;
  std::size_t entries = 0;  // listed so far (under MU)
  std::mutex mu;
  std::condition_variable cv;
  // Last in, first out: the walk goes deep first, so the descriptors held (a directory's, while
  // its subdirectories wait to be opened) are about one per level per thread.
  std::vector<Job> jobs{{nullptr, ".", "", 0}};
  unsigned busy = 0;
  auto work = [&] {
    std::unique_lock<std::mutex> lock(mu);
    for (;;) {
      cv.wait(lock, [&] { return !jobs.empty() || busy == 0; });
      if (jobs.empty()) return;
      if (entries >= max_entries) {
        jobs.clear();  // enough held: the walk reads the rest itself
        if (busy == 0) cv.notify_all();
        continue;
      }
      Job job = std::move(jobs.back());
      jobs.pop_back();
      ++busy;
      lock.unlock();
      auto fd = std::make_shared<sys::UniqueFd>(::openat(job.parent ? job.parent->get() : root_fd, job.name.c_str(),
                                                         O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      job.parent.reset();
      std::vector<Job> more;
      std::optional<Result<std::vector<TreeChild>>> listing;
      if (*fd) {
        listing = read_dir(fd->get(), root_name, job.path);
        if (*listing && job.depth < max_depth) {
          for (auto it = (*listing)->rbegin(); it != (*listing)->rend(); ++it) {
            if (it->st.type != EntryType::Dir) continue;
            std::string path = job.path.empty() ? it->name : job.path + "/" + it->name;
            if (skip && skip(path, it->name)) continue;
            more.push_back({fd, it->name, std::move(path), job.depth + 1});
          }
        }
      }
      fd.reset();
      lock.lock();
      if (listing) {
        if (*listing) entries += (*listing)->size();
        done.emplace(std::move(job.path), std::move(*listing));
      }
      for (auto& j : more) jobs.push_back(std::move(j));
      --busy;
      // The others wait for work or for the end: nothing else wakes them.
      if (!more.empty() || busy == 0) cv.notify_all();
    }
  };
  std::vector<std::thread> helpers;
  for (unsigned t = 1; t < threads; ++t) {
    try {
      helpers.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // fewer threads: the ones there do it all
    }
  }
  work();
  for (auto& t : helpers) t.join();
  return done;
}

}  // namespace paddock::undo
