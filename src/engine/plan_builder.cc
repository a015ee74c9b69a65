#include "engine/plan_builder.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <set>

#include "policy/path_util.h"
#include "sys/syscalls.h"

namespace paddock::engine {
namespace {

constexpr std::uint64_t kRead = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
constexpr std::uint64_t kExec = LANDLOCK_ACCESS_FS_EXECUTE;
constexpr std::uint64_t kWrite = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
                                 LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_DIR |
                                 LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |
                                 LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_SYM;
// Deliberately never granted anywhere: MAKE_CHAR, MAKE_BLOCK (device nodes).
constexpr std::uint64_t kDevice = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE |
                                  LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_TRUNCATE |
                                  LANDLOCK_ACCESS_FS_IOCTL_DEV;

bool is_under(const std::string& path, const std::string& root) {
  if (root == "/") return true;
  return path == root || (path.size() > root.size() && path.compare(0, root.size(), root) == 0 &&
                          path[root.size()] == '/');
}

int order_of(MountOp::Kind k) {
  switch (k) {
    case MountOp::Kind::WriteFile: return 0;
    case MountOp::Kind::Tmpfs:
    case MountOp::Kind::Overlay:
    case MountOp::Kind::Bind:
    case MountOp::Kind::Symlink:
    case MountOp::Kind::Proc:
    case MountOp::Kind::Devpts:
    case MountOp::Kind::DevNode: return 1;
    case MountOp::Kind::MaskDir:
    case MountOp::Kind::MaskFile: return 2;
    case MountOp::Kind::Protect: return 3;
  }
  return 4;
}

// Default tmpfs sizes: generous but finite, so a /tmp or HOME filler cannot exhaust the host's
// memory even when the user sets nothing: a quarter of RAM, at most 8 GiB (docs/limits.md).
std::string default_tmpfs_size() {
  struct sysinfo si;
  std::uint64_t ram = sysinfo(&si) == 0 ? static_cast<std::uint64_t>(si.totalram) * si.mem_unit : 0;
  std::uint64_t size = std::min<std::uint64_t>(ram / 4, 8ull << 30);
  return size ? std::to_string(size) : "25%";
}

// How deep below a rule the fallback splits it around a sensitive path (rules per level: one per
// sibling entry).
constexpr int kMaxSplitDepth = 8;

std::string in_new_root(const std::string& p) { return std::string(kNewRoot) + (p == "/" ? "" : p); }

class Planner {
 public:
  Planner(const Policy& p, const FsPlanInputs& in) : policy_(p), in_(in) {}

  Result<FsPlan> run() {
    if (auto r = check_write_only(); !r) return std::move(r).take_error();
    out_.landlock.abi = in_.landlock_abi;
    if (in_.landlock_abi > 0) {
      out_.landlock.handled_fs = landlock_handled_fs(in_.landlock_abi);
      if (in_.landlock_abi >= 6)
        out_.landlock.scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL;
    }
    if (in_.namespaces) {
      if (auto r = plan_namespaces(); !r) return std::move(r).take_error();
    } else {
      if (auto r = plan_fallback(); !r) return std::move(r).take_error();
    }
    return std::move(out_);
  }

 private:
  void add(MountOp op) { ops_.push_back(std::move(op)); }
  void ll(std::string path, std::uint64_t access, bool optional = false) {
    if (in_.landlock_abi > 0) out_.landlock.rules.push_back({std::move(path), access, optional});
  }
  bool covered_by_rule(const std::string& path) const {
    for (const PathRule& r : policy_.paths)
      if (is_under(path, r.path)) return true;
    return false;
  }

  // The writable rule whose area PATH lies in (the deepest rule containing it), or null.
  const PathRule* area_of(const std::string& path) const {
    const PathRule* best = nullptr;
    for (const PathRule& r : policy_.paths)
      if (is_under(path, r.path) && (best == nullptr || r.path.size() > best->path.size())) best = &r;
    return best != nullptr && grants(best->access, Access::Write) && best->symlink_target.empty() ? best : nullptr;
  }

  // A protected path's (or a mask's) mount holds it in place, but the directories between it and
  // its writable area could still be renamed away and rebuilt (mv .git .git.old; mkdir .git; a new
  // config): each of them that exists is bound onto itself, writable as before. A mount point
  // cannot be renamed or removed (EBUSY), so .git, .vscode, .idea stay the ones the host knows
  // (issue 12), and a hidden secret stays at the path the next run hides (issue 25, class 8:
  // `mv ~/.config/containers ~/.config/c2` would show auth.json at the new name next time).
  void hold_directories_above(const std::string& protected_path) {
    const PathRule* area = area_of(protected_path);
    if (area == nullptr) return;
    for (std::string d = path::parent(protected_path); d != area->path && is_under(d, area->path);
         d = path::parent(d)) {
      if (!held_.insert(d).second) continue;
      if (area_of(d) != area || policy_.find_rule(d) != nullptr) continue;  // another rule's mount decides
      const bool special = std::any_of(policy_.protected_paths.begin(), policy_.protected_paths.end(),
                                       [&](const ProtectedPath& p) { return p.path == d; }) ||
                           std::any_of(policy_.denied.begin(), policy_.denied.end(),
                                       [&](const DeniedPath& x) { return is_under(d, x.path); });
      if (special) continue;  // read-only or hidden already: a writable re-bind would undo it
      struct stat st;
      if (lstat(d.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) continue;
      add({MountOp::Kind::Protect, "", in_new_root(d), d, "", false, true});
    }
  }

  Result<void> plan_namespaces() {
    // paddock's own files. The mask source lives in the scratch root (outside the new root), so a
    // rule binding "/" itself cannot hide it; the policy file goes to /.paddock, or to the
    // sandbox's own /dev when "/" is bound from the host and nothing can be created there.
    bool root_bound = false;
    for (const PathRule& r : policy_.paths)
      if (r.path == "/") root_bound = true;
    paddock_dir_ = root_bound ? std::string("/dev") + kPaddockDir : std::string(kPaddockDir);
    out_.policy_file = paddock_dir_ + "/policy.json";
    add({MountOp::Kind::WriteFile, "", kMaskSource, "", "", true, false});
    if (!in_.policy_json.empty())
      add({MountOp::Kind::WriteFile, "", in_new_root(out_.policy_file), out_.policy_file, in_.policy_json, false, false});
    if (!in_.checkpoint_socket.empty()) {
      struct stat st;
      if (lstat(in_.checkpoint_socket.c_str(), &st) != 0 || !S_ISSOCK(st.st_mode))
        return make_error("the checkpoint channel is not a socket", in_.checkpoint_socket);
      const std::string inside = paddock_dir_ + "/checkpoint";
      MountOp op{MountOp::Kind::Bind, std::string(kOldRoot) + in_.checkpoint_socket, in_new_root(inside), inside, "",
                 true, false};
      op.check_inode = true;
      op.dev = st.st_dev;
      op.ino = st.st_ino;
      add(std::move(op));
    }
    if (!in_.denials_file.empty()) {
      // Read-only: the sandbox reads what it was refused; only paddock writes it (a read-only bind
      // in a user namespace cannot be made writable again, and mount calls are refused anyway).
      struct stat st;
      if (lstat(in_.denials_file.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
        return make_error("the denials record is not a regular file", in_.denials_file);
      out_.denials_file = paddock_dir_ + "/denials.jsonl";
      MountOp op{MountOp::Kind::Bind, std::string(kOldRoot) + in_.denials_file, in_new_root(out_.denials_file),
                 out_.denials_file, "", true, false};
      op.check_inode = true;
      op.dev = st.st_dev;
      op.ino = st.st_ino;
      add(std::move(op));
    }
    ll(paddock_dir_, LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR, true);
    // Listing "/" (READ_DIR beneath covers listing, never file contents).
    ll("/", LANDLOCK_ACCESS_FS_READ_DIR);

    bool home_rule = false, tmp_rule = false;
    // A mount of its own at HOME (a jail's stable HOME, RunOptions::mounts) takes the fresh
    // tmpfs's place: HOME is that directory, and the profile's grants under HOME are bound into it.
    for (const SandboxMount& m : in_.extra_mounts)
      if (!policy_.home.empty() && m.sandbox_path == policy_.home) home_rule = true;
    for (const PathRule& r : policy_.paths) {
      struct stat st;
      if (lstat(r.path.c_str(), &st) != 0) {
        if (r.optional) continue;
        return errno_error("cannot use path", errno, r.path);
      }
      if (r.path == policy_.home) home_rule = true;
      if (r.path == "/tmp") tmp_rule = true;
      if (!r.symlink_target.empty() && r.origin.kind != Origin::Kind::BuiltIn) {
        // A path the user typed through a symlink (policy_builder.cc, 3b): a link to the canonical
        // target, which its own rule binds. Absolute, since the typed path's parents may themselves
        // have been links on the host.
        add({MountOp::Kind::Symlink, r.symlink_target, in_new_root(r.path), r.path, "", true, false});
        continue;
      }
      if (S_ISLNK(st.st_mode)) {
        // System entries like /bin -> usr/bin are recreated as the same symlink.
        char target[PATH_MAX];
        ssize_t n = readlink(r.path.c_str(), target, sizeof(target) - 1);
        if (n < 0) return errno_error("readlink", errno, r.path);
        target[n] = '\0';
        add({MountOp::Kind::Symlink, target, in_new_root(r.path), r.path, "", true, false});
        continue;
      }
      MountOp op{MountOp::Kind::Bind, std::string(kOldRoot) + r.path, in_new_root(r.path), r.path, "",
                 !grants(r.access, Access::Write), S_ISDIR(st.st_mode)};
      op.check_inode = true;
      op.dev = st.st_dev;
      op.ino = st.st_ino;
      add(std::move(op));
      ll(r.path, landlock_access_for(r.access, in_.landlock_abi));
    }

    const std::uint64_t all_rw = kRead | kExec | kWrite | LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_REFER;
    // Landlock rights are inherited down the tree: a private tmpfs that holds a host-backed
    // writable bind (the project under HOME) would lend it MAKE_FIFO, which host-backed paths must
    // not have (landlock_access_for). Such a tmpfs gets no FIFOs of its own either.
    auto private_area = [&](const std::string& area) -> std::uint64_t {
      for (const PathRule& r : policy_.paths)
        if (r.symlink_target.empty() && grants(r.access, Access::Write) && r.path != area && is_under(r.path, area))
          return all_rw & ~LANDLOCK_ACCESS_FS_MAKE_FIFO;
      return all_rw;
    };
    // A fresh HOME and /tmp, unless a rule binds exactly those paths.
    if (!home_rule && !policy_.home.empty()) {
      std::string size = policy_.limits.home_size_bytes ? std::to_string(*policy_.limits.home_size_bytes) : default_tmpfs_size();
      add({MountOp::Kind::Tmpfs, "", in_new_root(policy_.home), policy_.home, "mode=0700,size=" + size, false, true});
      ll(policy_.home, private_area(policy_.home));
      out_.scratch_home = policy_.home;
      // Only what is bound into it stays writable: a write anywhere else fails (EROFS).
      if (policy_.refuse_discarded_writes) out_.remount_ro_at_end.push_back(policy_.home);
    }
    if (!tmp_rule) {
      std::string size = policy_.limits.tmp_size_bytes ? std::to_string(*policy_.limits.tmp_size_bytes) : default_tmpfs_size();
      add({MountOp::Kind::Tmpfs, "", in_new_root("/tmp"), "/tmp", "mode=1777,size=" + size, false, true});
      ll("/tmp", private_area("/tmp"));
    }

    // A minimal /dev.
    add({MountOp::Kind::Tmpfs, "", in_new_root("/dev"), "/dev", "mode=0755,size=64k,nr_inodes=64", false, true});
    out_.remount_ro_at_end.push_back("/dev");
    for (const char* dev : {"null", "zero", "full", "random", "urandom", "tty"}) {
      std::string host = std::string("/dev/") + dev;
      if (access(host.c_str(), F_OK) != 0) continue;
      add({MountOp::Kind::DevNode, std::string(kOldRoot) + host, in_new_root(host), host, "", false, false,
           false, 0, 0, MS_NOEXEC});
    }
    add({MountOp::Kind::Devpts, "", in_new_root("/dev/pts"), "/dev/pts", "", false, true});
    add({MountOp::Kind::Symlink, "pts/ptmx", in_new_root("/dev/ptmx"), "/dev/ptmx", "", true, false});
    add({MountOp::Kind::Tmpfs, "", in_new_root("/dev/shm"), "/dev/shm", "mode=1777,size=" + std::to_string(shm_size_for(policy_.limits)), false, true});
    add({MountOp::Kind::Symlink, "/proc/self/fd", in_new_root("/dev/fd"), "/dev/fd", "", true, false});
    add({MountOp::Kind::Symlink, "/proc/self/fd/0", in_new_root("/dev/stdin"), "/dev/stdin", "", true, false});
    add({MountOp::Kind::Symlink, "/proc/self/fd/1", in_new_root("/dev/stdout"), "/dev/stdout", "", true, false});
    add({MountOp::Kind::Symlink, "/proc/self/fd/2", in_new_root("/dev/stderr"), "/dev/stderr", "", true, false});
    ll("/dev", kDevice);
    ll("/dev/shm", all_rw);

    // The sandbox's own /proc, with the host-wide knobs read-only.
    add({MountOp::Kind::Proc, "", in_new_root("/proc"), "/proc", "", false, true});
    for (const char* p : {"/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs"}) {
      MountOp op{MountOp::Kind::Protect, "", in_new_root(p), p, "", true, std::string(p) != "/proc/sysrq-trigger"};
      add(std::move(op));
    }
    ll("/proc", LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR);

    // No host /sys, even under a broad rule.
    if (covered_by_rule("/sys"))
      add({MountOp::Kind::MaskDir, "", in_new_root("/sys"), "/sys", "mode=000,size=4k,nr_inodes=8", true, true});

    // Sensitive paths: hidden under an empty, unreadable, read-only object.
    for (const DeniedPath& d : policy_.denied) {
      struct stat st;
      if (lstat(d.path.c_str(), &st) != 0) continue;  // nothing there to hide
      if (S_ISDIR(st.st_mode)) {
        // A rule strictly inside is bound over the mask (`--read ~/.ssh/known_hosts`, a host user's
        // own part of an agent's state): the mask holds only the directories on the way to it,
        // which the command must be able to pass through but not list.
        const bool inner = std::any_of(policy_.paths.begin(), policy_.paths.end(), [&](const PathRule& r) {
          return r.path != d.path && is_under(r.path, d.path);
        });
        add({MountOp::Kind::MaskDir, "", in_new_root(d.path), d.path,
             inner ? "mode=0111,size=4k,nr_inodes=64" : "mode=000,size=4k,nr_inodes=8", true, true});
        out_.remount_ro_at_end.push_back(d.path);
      } else {
        add({MountOp::Kind::MaskFile, kMaskSource, in_new_root(d.path),
             d.path, "", true, false});
      }
      hold_directories_above(d.path);
    }
    // Files the host executes later: read-only where the sandbox could otherwise write them.
    for (const ProtectedPath& p : policy_.protected_paths) {
      if (!p.exists) continue;
      struct stat st;
      if (lstat(p.path.c_str(), &st) != 0 || S_ISLNK(st.st_mode)) continue;
      add({MountOp::Kind::Protect, "", in_new_root(p.path), p.path, "", true, S_ISDIR(st.st_mode)});
      hold_directories_above(p.path);
    }
    // Filtered network: our resolver. /etc/resolv.conf may be a symlink; replace its target.
    if (!in_.resolv_conf.empty()) {
      std::string target = "/etc/resolv.conf";
      char real[PATH_MAX];
      if (realpath("/etc/resolv.conf", real) != nullptr) target = real;
      std::string src = in_new_root(paddock_dir_ + "/resolv.conf");
      add({MountOp::Kind::WriteFile, "", src, paddock_dir_ + "/resolv.conf", in_.resolv_conf, false, false});
      MountOp bind{MountOp::Kind::Bind, src, in_new_root(target), target, "", true, false};
      if (!covered_by_rule(target)) {
        // Not visible otherwise: the file is created in the sandbox's root at that path.
        add({MountOp::Kind::WriteFile, "", in_new_root(target), target, in_.resolv_conf, false, false});
      } else {
        add(std::move(bind));
      }
      ll(target, LANDLOCK_ACCESS_FS_READ_FILE);
    }

    // Extra mounts at their own paths (RunOptions::mounts): after everything at their path.
    for (const SandboxMount& m : in_.extra_mounts) {
      if (m.sandbox_path.empty() || m.sandbox_path[0] != '/' || m.sandbox_path == "/")
        return make_error("a sandbox mount needs an absolute path other than /", m.sandbox_path);
      if (m.host_path.empty()) {
        std::string data = std::string(grants(m.access, Access::Write) ? "mode=0755" : "mode=0555");
        if (m.tmpfs_size_bytes) data += ",size=" + std::to_string(m.tmpfs_size_bytes);
        add({MountOp::Kind::Tmpfs, "", in_new_root(m.sandbox_path), m.sandbox_path, data, false, true});
        if (!grants(m.access, Access::Write)) out_.remount_ro_at_end.push_back(m.sandbox_path);
      } else if (!m.overlay_upper.empty() || !m.overlay_work.empty()) {
        std::string data;
        for (const auto& [key, dir] : {std::pair{"lowerdir=", &m.host_path}, {"upperdir=", &m.overlay_upper},
                                       {"workdir=", &m.overlay_work}}) {
          struct stat st;
          if (dir->empty() || (*dir)[0] != '/' || stat(dir->c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
            return make_error("an overlay layer is not a directory", *dir);
          // Option syntax: these would split or end the option string.
          if (dir->find_first_of(",:\\") != std::string::npos)
            return make_error("an overlay layer's path may not contain ',', ':' or '\\'", *dir);
          data += (data.empty() ? "" : ",") + std::string(key) + kOldRoot + *dir;
        }
        add({MountOp::Kind::Overlay, "", in_new_root(m.sandbox_path), m.sandbox_path, data + ",userxattr", false, true});
      } else {
        struct stat st;
        if (stat(m.host_path.c_str(), &st) != 0) return errno_error("cannot use path", errno, m.host_path);
        MountOp op{MountOp::Kind::Bind, std::string(kOldRoot) + m.host_path, in_new_root(m.sandbox_path),
                   m.sandbox_path, "", !grants(m.access, Access::Write), S_ISDIR(st.st_mode)};
        op.check_inode = true;
        op.dev = st.st_dev;
        op.ino = st.st_ino;
        add(std::move(op));
      }
      std::uint64_t access = landlock_access_for(m.access, in_.landlock_abi);
      // A private tmpfs is not host-backed: FIFOs there hang nothing on the host.
      if (m.host_path.empty() && grants(m.access, Access::Write))
        access |= LANDLOCK_ACCESS_FS_MAKE_FIFO & landlock_handled_fs(in_.landlock_abi);
      ll(m.sandbox_path, access);
    }

    // Parents before children, each subtree whole: paths compare component-wise (/a, /a/b, /a-b;
    // a string `<` would put /a-b between /a and /a/b). At one path, the kinds' own order.
    std::stable_sort(ops_.begin(), ops_.end(), [](const MountOp& a, const MountOp& b) {
      if (a.label != b.label) return path_component_less(a.label, b.label);
      return order_of(a.kind) < order_of(b.kind);
    });
    // "/" is the root tmpfs itself: sealed read-only last.
    out_.remount_ro_at_end.push_back("/");
    // What paddock itself makes in the fresh HOME (mount points and the directories above them):
    // not something the command wrote there (discarded_writes.h).
    if (!out_.scratch_home.empty()) {
      for (const MountOp& op : ops_) {
        for (std::string p = op.label; p != out_.scratch_home && is_under(p, out_.scratch_home); p = path::parent(p))
          out_.scratch_setup.insert(p);
      }
    }
    out_.mounts = std::move(ops_);
    return {};
  }

  // Landlock + seccomp only. Hiding a sensitive path inside an allowed directory needs the rule
  // to be split into its siblings, since Landlock can only add access.
  Result<void> plan_fallback() {
    if (in_.landlock_abi == 0) return make_error("no isolation available: neither user namespaces nor Landlock");
    for (const SandboxMount& m : in_.extra_mounts)
      if (!m.needs_namespaces)
        return make_error("mounts at their own paths need user namespaces, which are unavailable here", m.sandbox_path);
    std::set<std::string> denied;
    for (const DeniedPath& d : policy_.denied) denied.insert(d.path);
    // With namespaces the real HOME is replaced by a fresh tmpfs unless a rule names it, so a rule
    // on a parent of HOME shows none of it (and the policy lists no secrets under it). Here the
    // command gets a private HOME elsewhere: hide the real one whole, or ~/.ssh would be readable.
    if (!policy_.home.empty() && policy_.home != "/" && policy_.find_rule(policy_.home) == nullptr)
      denied.insert(policy_.home);
    for (const PathRule& r : policy_.paths) {
      struct stat st;
      if (stat(r.path.c_str(), &st) != 0) {
        if (r.optional) continue;
        return errno_error("cannot use path", errno, r.path);
      }
      if (auto e = expand(r.path, landlock_access_for(r.access, in_.landlock_abi), denied, 0, r.optional); !e)
        return e;
    }
    const std::uint64_t all_rw = kRead | kExec | kWrite | LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_REFER;
    ll("/", LANDLOCK_ACCESS_FS_READ_DIR);
    if (!in_.fallback_home.empty()) ll(in_.fallback_home, all_rw);
    if (!in_.fallback_tmp.empty()) ll(in_.fallback_tmp, all_rw);
    if (!in_.fallback_policy_file.empty()) ll(in_.fallback_policy_file, LANDLOCK_ACCESS_FS_READ_FILE);
    for (const char* dev : {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty",
                            "/dev/ptmx", "/dev/pts"})
      ll(dev, kDevice, true);
    // No /dev/shm: the host's would be shared with the user's other processes and outlive the
    // run (with namespaces it is a private tmpfs). `--allow /dev/shm` grants it, knowingly.
    ll("/proc", LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR);
    // Protected files stay writable here: fallback_gaps() says so with the fallback's other gaps.
    return {};
  }

  // Grants PATH, or, when a sensitive path lies inside it, lists it and grants its entries one by
  // one, recursing towards the sensitive path. Entries come from readdir and may vanish before the
  // child opens them (a tool's /etc/subgid.NNN lock file): optional rules, skipped if gone. The
  // rule's own path is as optional as the policy says.
  Result<void> expand(const std::string& path, std::uint64_t access, const std::set<std::string>& denied,
                      int depth, bool optional) {
    if (denied.count(path)) return {};
    const std::string* inside = nullptr;
    for (const std::string& d : denied)
      if (d != path && is_under(d, path)) inside = &d;
    if (inside == nullptr) {
      ll(path, access, optional);
      return {};
    }
    // Each level adds a rule per sibling; past kMaxSplitDepth the split is refused rather than the
    // subtree granted whole, which would show the sensitive path (fail closed). Listing only would
    // silently take away the rest of what the rule grants.
    if (depth > kMaxSplitDepth)
      return make_error("cannot hide " + *inside + " without namespaces: it lies more than " +
                            std::to_string(kMaxSplitDepth) + " levels below " + path,
                        *inside,
                        "allow a path nearer to it (or one that does not contain it), or run where user "
                        "namespaces are available");
    ll(path, LANDLOCK_ACCESS_FS_READ_DIR, optional);  // names are listed, contents of denied entries are not
    DIR* dir = opendir(path.c_str());
    if (!dir) return {};
    Result<void> r;
    while (dirent* e = readdir(dir)) {
      std::string name = e->d_name;
      if (name == "." || name == "..") continue;
      r = expand(path == "/" ? "/" + name : path + "/" + name, access, denied, depth + 1, true);
      if (!r) break;
    }
    closedir(dir);
    if (!r) return r;
    if (access & LANDLOCK_ACCESS_FS_MAKE_REG)
      out_.warnings.push_back("without namespaces, new files directly inside " + path +
                            " cannot be created (it holds a hidden sensitive path)");
    return {};
  }

  // A Write rule nested in something the sandbox can read cannot be write-only: Landlock adds
  // access along the path and the mount layer cannot take reading away. Refused, not loosened.
  Result<void> check_write_only() const {
    for (const PathRule& r : policy_.paths) {
      if (r.access != Access::Write) continue;
      for (const PathRule& o : policy_.paths)
        if (&o != &r && grants(o.access, Access::Read) && is_under(r.path, o.path) && r.path != o.path)
          return make_error("cannot be write-only inside " + o.path + ", which the sandbox can read",
                            r.origin.detail.empty() ? r.path : r.origin.detail,
                            "use --allow for it, or a --write path outside readable ones");
      bool home_virtual = policy_.find_rule(policy_.home) == nullptr;
      if ((home_virtual && !policy_.home.empty() && is_under(r.path, policy_.home)) ||
          (policy_.find_rule("/tmp") == nullptr && is_under(r.path, "/tmp")))
        return make_error("cannot be write-only inside the sandbox's own HOME or /tmp, which it can read",
                          r.origin.detail.empty() ? r.path : r.origin.detail,
                          "use --allow for it, or a --write path outside HOME and /tmp");
    }
    return {};
  }

  const Policy& policy_;
  const FsPlanInputs& in_;
  std::string paddock_dir_ = kPaddockDir;
  std::vector<MountOp> ops_;
  std::set<std::string> held_;  // directories hold_directories_above() has looked at
  FsPlan out_;
};

}  // namespace

std::uint64_t landlock_handled_fs(int abi) {
  if (abi <= 0) return 0;
  std::uint64_t h = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1;  // ABI 1: bits 0-12
  if (abi >= 2) h |= LANDLOCK_ACCESS_FS_REFER;
  if (abi >= 3) h |= LANDLOCK_ACCESS_FS_TRUNCATE;
  if (abi >= 5) h |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
  return h;
}

std::uint64_t landlock_access_for(Access a, int abi) {
  std::uint64_t m = 0;
  if (grants(a, Access::Read)) m |= kRead | kExec;
  // No FIFOs on host-backed paths (issue 12, item 3): a FIFO left in the project hangs the host
  // tools that open it (an editor, a build, `git add`). The sandbox's own /tmp and HOME keep them
  // (make's jobserver, shells' process substitution).
  if (grants(a, Access::Write))
    m |= (kWrite & ~LANDLOCK_ACCESS_FS_MAKE_FIFO) | LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_REFER;
  return m & landlock_handled_fs(abi);
}

Result<FsPlan> plan_filesystem(const Policy& policy, const FsPlanInputs& in) { return Planner(policy, in).run(); }

bool path_component_less(std::string_view a, std::string_view b) {
  // Byte order, with the separator below every other byte: the same as comparing the lists of
  // components.
  const std::size_t n = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (a[i] == b[i]) continue;
    if (a[i] == '/') return true;
    if (b[i] == '/') return false;
    return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[i]);
  }
  return a.size() < b.size();
}

NetIsolation net_isolation(NetMode mode, bool namespaces) {
  NetIsolation n;
  if (mode == NetMode::Host) return n;
  // Off and Filtered: nothing but loopback (Filtered adds the egress filter's listeners inside).
  // Without namespaces only Off runs (check_mode refuses Filtered); the socket rule would hold
  // for Filtered too, failing closed.
  n.new_netns = namespaces;
  n.loopback_up = namespaces;
  n.deny_inet_sockets = !namespaces;
  return n;
}

}  // namespace paddock::engine
