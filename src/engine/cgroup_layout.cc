#include "engine/cgroup_layout.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <vector>

namespace paddock::engine {
namespace {

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    std::size_t pos = s.find(sep, start);
    out.push_back(s.substr(start, pos == std::string_view::npos ? std::string_view::npos : pos - start));
    if (pos == std::string_view::npos) break;
    start = pos + 1;
  }
  return out;
}

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string unescape(std::string_view s) {
  std::string out;
  auto oct = [](char c) { return c >= '0' && c <= '7'; };
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && oct(s[i + 1]) &&
        oct(s[i + 2]) && oct(s[i + 3])) {
      out += static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
      i += 3;
      continue;
    }
    out += s[i];
  }
  return out;
}

// Mount root + the process's path (relative to its cgroup namespace root) -> a directory.
std::string own_dir(const std::string& mountpoint, const std::string& mount_root,
                    const std::string& own) {
  std::string rel = own;
  if (mount_root != "/" && rel.rfind(mount_root, 0) == 0) rel = rel.substr(mount_root.size());
  if (rel.empty() || rel == "/") return mountpoint;
  if (rel.front() != '/') rel = "/" + rel;
  return mountpoint + rel;
}

struct Mount {
  std::string root, point, fstype;
  std::vector<std::string> options;  // super options: "rw,memory" -> {"rw","memory"}
};

}  // namespace

CgroupLayout parse_cgroup_layout(std::string_view mountinfo, std::string_view proc_cgroup) {
  std::vector<Mount> mounts;
  for (std::string_view line : split(mountinfo, '\n')) {
    if (line.empty()) continue;
    std::vector<std::string_view> f = split(line, ' ');
    std::size_t dash = 0;
    for (std::size_t i = 6; i < f.size(); ++i)
      if (f[i] == "-") {
        dash = i;
        break;
      }
    if (dash == 0 || dash + 3 >= f.size()) continue;  // fstype, source, super options
    Mount m;
    m.root = unescape(f[3]);
    m.point = unescape(f[4]);
    m.fstype = std::string(f[dash + 1]);
    if (m.fstype != "cgroup" && m.fstype != "cgroup2") continue;
    for (std::string_view o : split(f[dash + 3], ','))
      m.options.emplace_back(o);
    mounts.push_back(std::move(m));
  }

  CgroupLayout layout;
  for (std::string_view line : split(proc_cgroup, '\n')) {
    if (line.empty()) continue;
    std::size_t c1 = line.find(':');
    std::size_t c2 = c1 == std::string_view::npos ? c1 : line.find(':', c1 + 1);
    if (c2 == std::string_view::npos) continue;
    std::string_view id = line.substr(0, c1);
    std::string_view ctrls = line.substr(c1 + 1, c2 - c1 - 1);
    std::string path(line.substr(c2 + 1));
    if (id == "0" && ctrls.empty()) {
      for (const Mount& m : mounts) {
        if (m.fstype != "cgroup2") continue;
        layout.v2_own_dir = own_dir(m.point, m.root, path);
        layout.v2_is_unified = (m.point == "/sys/fs/cgroup");
        break;
      }
      continue;
    }
    for (std::string_view ctrl : split(ctrls, ',')) {
      if (ctrl.empty() || ctrl.rfind("name=", 0) == 0) continue;
      for (const Mount& m : mounts) {
        if (m.fstype != "cgroup") continue;
        bool has = false;
        for (const std::string& o : m.options) has = has || o == ctrl;
        if (!has) continue;
        layout.v1_own_dir.emplace(std::string(ctrl), own_dir(m.point, m.root, path));
        break;
      }
    }
  }
  if (!layout.v1_own_dir.empty()) layout.v2_is_unified = false;
  return layout;
}

std::string CgroupLayout::describe() const {
  std::string out;
  if (!v2_own_dir.empty()) out += (v2_is_unified ? "cgroup2 " : "cgroup2 (hybrid) ") + v2_own_dir;
  for (const auto& [ctrl, dir] : v1_own_dir) {
    if (ctrl != "memory" && ctrl != "pids" && ctrl != "cpu" && ctrl != "cpuacct") continue;
    if (!out.empty()) out += "; ";
    out += "v1 " + ctrl + "=" + dir;
  }
  return out.empty() ? "no cgroups mounted" : out;
}

Result<CgroupLayout> discover_cgroup_layout() {
  auto slurp = [](const char* path) -> std::optional<std::string> {
    std::ifstream in(path);
    if (!in) return std::nullopt;
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  auto mi = slurp("/proc/self/mountinfo");
  auto cg = slurp("/proc/self/cgroup");
  if (!mi || !cg) return errno_error("cannot read /proc/self/mountinfo or /proc/self/cgroup", errno);
  return parse_cgroup_layout(*mi, *cg);
}

std::string cgroup2_own_dir_quick() {
  char buf[4096];
  int fd = ::open("/proc/self/cgroup", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return "";
  std::string_view text(buf, static_cast<std::size_t>(n));
  std::string own;
  for (std::string_view line : split(text, '\n'))
    if (line.substr(0, 3) == "0::") own = std::string(line.substr(3));
  if (own.empty() || own.front() != '/') return "";
  for (const char* mount : {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"}) {
    struct statfs fs;
    if (::statfs(mount, &fs) == 0 && fs.f_type == CGROUP2_SUPER_MAGIC) return own == "/" ? mount : mount + own;
  }
  return "";
}

}  // namespace paddock::engine
