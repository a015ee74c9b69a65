// The real user database, read from /etc/passwd and /etc/group themselves. paddock is linked
// statically, and a static glibc loading NSS modules (libnss_systemd, sssd, ...) at run time can
// crash (seen: getpwent through libnss_systemd); host users and agent users are local accounts
// that useradd writes to these files, so these files are the source (docs/host.md).
#include "host/users.h"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace paddock::host {
namespace {

std::vector<std::vector<std::string>> read_colon_file(const char* path) {
  std::vector<std::vector<std::string>> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line[0] == '+' || line[0] == '-') continue;
    std::vector<std::string> f;
    std::size_t i = 0;
    while (true) {
      std::size_t j = line.find(':', i);
      f.push_back(line.substr(i, j == std::string::npos ? std::string::npos : j - i));
      if (j == std::string::npos) break;
      i = j + 1;
    }
    out.push_back(std::move(f));
  }
  return out;
}

std::optional<unsigned> number(const std::string& s) {
  if (s.empty() || s.size() > 10 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  unsigned long v = std::stoul(s);
  if (v > 0xfffffffeul) return std::nullopt;
  return static_cast<unsigned>(v);
}

std::vector<UserInfo> all_users() {
  std::vector<UserInfo> out;
  for (const auto& f : read_colon_file("/etc/passwd")) {
    if (f.size() < 7) continue;
    auto uid = number(f[2]), gid = number(f[3]);
    if (!uid || !gid) continue;
    if (std::any_of(out.begin(), out.end(), [&](const UserInfo& u) { return u.name == f[0]; })) continue;  // first wins
    out.push_back({f[0], *uid, *gid, f[5]});
  }
  return out;
}

struct Group {
  std::string name;
  unsigned gid;
  std::vector<std::string> members;
};

std::vector<Group> all_groups() {
  std::vector<Group> out;
  for (const auto& f : read_colon_file("/etc/group")) {
    if (f.size() < 4) continue;
    auto gid = number(f[2]);
    if (!gid) continue;
    Group g{f[0], *gid, {}};
    std::stringstream ms(f[3]);
    std::string m;
    while (std::getline(ms, m, ','))
      if (!m.empty()) g.members.push_back(m);
    out.push_back(std::move(g));
  }
  return out;
}

class RealUsers final : public UserDb {
 public:
  std::optional<UserInfo> by_name(const std::string& name) const override {
    for (auto& u : all_users())
      if (u.name == name) return u;
    return std::nullopt;
  }
  std::optional<UserInfo> by_uid(unsigned uid) const override {
    for (auto& u : all_users())
      if (u.uid == uid) return u;
    return std::nullopt;
  }
  std::optional<unsigned> group_gid(const std::string& name) const override {
    for (const auto& g : all_groups())
      if (g.name == name) return g.gid;
    return std::nullopt;
  }
  std::vector<UserInfo> login_users() const override {
    std::vector<UserInfo> out;
    for (auto& u : all_users())
      if (!u.home.empty() && u.home[0] == '/' && (u.uid == 0 || (u.uid >= 1000 && u.uid < 65534))) out.push_back(u);
    return out;
  }
  std::vector<gid_t> groups_of(const std::string& user, gid_t gid) const override {
    std::vector<gid_t> out{gid};
    for (const auto& g : all_groups())
      if (g.gid != gid && std::find(g.members.begin(), g.members.end(), user) != g.members.end()) out.push_back(g.gid);
    return out;
  }
  std::vector<std::string> group_members(unsigned gid) const override {
    std::vector<std::string> out;
    for (const auto& g : all_groups())
      if (g.gid == gid)
        for (const auto& m : g.members)
          if (std::find(out.begin(), out.end(), m) == out.end()) out.push_back(m);
    for (const auto& u : all_users())
      if (u.gid == gid && std::find(out.begin(), out.end(), u.name) == out.end()) out.push_back(u.name);
    return out;
  }
};

}  // namespace

std::shared_ptr<UserDb> real_users() { return std::make_shared<RealUsers>(); }

}  // namespace paddock::host
