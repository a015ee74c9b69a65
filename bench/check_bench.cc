// paddock-check-bench TREE [ROUNDS]: what the check after a run costs on TREE (src/gate/), each
// figure the median of ROUNDS, the three interleaved:
//   check_indexed_ms  the walk with a directory index an earlier walk wrote (what a second and
//                     later `paddock run` in the tree pays: src/gate/dir_index.h)
//   check_full_ms     the walk reading every directory (no index: a first run, or a small tree)
//   floor_ms          one fstatat per directory of the tree, nothing else: the least any check
//                     that must see every directory's change without kernel notifications does
// and their ratios. bench/run_bench.sh and bench/guard_bench.sh run it beside `paddock run`.
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dirent.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "gate/tree_watch.h"
#include "sys/unique_fd.h"

using namespace paddock;

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// Every directory below the one open on FD, as paths relative to the top.
void directories(int fd, const std::string& rel, std::vector<std::string>& out) {
  std::vector<std::string> subs;
  sys::UniqueFd dup(fcntl(fd, F_DUPFD_CLOEXEC, 0));
  DIR* d = dup ? fdopendir(dup.release()) : nullptr;
  if (d == nullptr) return;
  while (dirent* e = readdir(d)) {
    const std::string n = e->d_name;
    if (n == "." || n == "..") continue;
    struct stat st;
    if (fstatat(fd, n.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) subs.push_back(n);
  }
  closedir(d);
  for (const std::string& n : subs) {
    const std::string r = rel.empty() ? n : rel + "/" + n;
    out.push_back(r);
    sys::UniqueFd sub(openat(fd, n.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (sub) directories(sub.get(), r, out);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: paddock-check-bench TREE [ROUNDS]\n");
    return 2;
  }
  const std::string tree = argv[1];
  const int rounds = argc > 2 ? std::max(1, std::atoi(argv[2])) : 50;
  char tmpl[] = "/tmp/paddock-check-bench-XXXXXX";
  if (mkdtemp(tmpl) == nullptr) return 1;
  const std::string index_dir = tmpl;

  Policy policy;
  policy.paths.push_back(PathRule{tree, tree, Access::ReadWrite, {Origin::Kind::Flag, "--allow"}, false, {}});
  const gate::IndexPlace place{index_dir, 0};

  sys::UniqueFd top(open(tree.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!top) {
    std::perror(tree.c_str());
    return 1;
  }
  std::vector<std::string> dirs;
  directories(top.get(), "", dirs);

  // The index, written by a first walk once the tree has settled (dir_index.h's racy window).
  usleep(50'000);
  gate::TreeWatch::before(policy, {}, place).after();
  gate::WalkCost probe;
  gate::TreeWatch::before(policy, {}, place).after(gate::TreeWatch::kEntryBudget, {}, {}, &probe);

  std::vector<double> indexed, full, floor;
  for (int i = 0; i < rounds; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    gate::TreeWatch w = gate::TreeWatch::before(policy, {}, place);
    if (!w.after().empty()) std::fprintf(stderr, "check_bench: the tree changed during the bench\n");
    indexed.push_back(ms_since(t0));

    t0 = std::chrono::steady_clock::now();
    gate::TreeWatch f = gate::TreeWatch::before(policy);
    (void)f.after();
    full.push_back(ms_since(t0));

    t0 = std::chrono::steady_clock::now();
    struct stat st;
    for (const std::string& d : dirs) (void)fstatat(top.get(), d.c_str(), &st, AT_SYMLINK_NOFOLLOW);
    (void)fstat(top.get(), &st);
    floor.push_back(ms_since(t0));
  }
  const double mi = median(indexed), mf = median(full), fl = median(floor);
  std::printf("directories %zu\n", dirs.size() + 1);
  std::printf("index_used %zu of %zu directories\n", probe.from_index, probe.from_index + probe.listed);
  std::printf("check_indexed_ms %.3f\n", mi);
  std::printf("check_full_ms %.3f\n", mf);
  std::printf("floor_ms %.3f\n", fl);
  std::printf("indexed_vs_floor %.2f\n", fl > 0 ? mi / fl : 0);
  std::printf("indexed_vs_full %.3f\n", mf > 0 ? mi / mf : 0);
  std::system(("rm -rf " + index_dir).c_str());
  return 0;
}
