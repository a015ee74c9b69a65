#include "host/users.h"

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <mutex>

namespace paddock::host {
namespace {

UserInfo from(const struct passwd& pw) {
  return {pw.pw_name, static_cast<unsigned>(pw.pw_uid), static_cast<unsigned>(pw.pw_gid),
          pw.pw_dir != nullptr ? pw.pw_dir : ""};
}

class RealUsers final : public UserDb {
 public:
  std::optional<UserInfo> by_name(const std::string& name) const override {
    std::vector<char> buf(16384);
    struct passwd pw, *found = nullptr;
    while (::getpwnam_r(name.c_str(), &pw, buf.data(), buf.size(), &found) == ERANGE) buf.resize(buf.size() * 2);
    if (found == nullptr) return std::nullopt;
    return from(pw);
  }
  std::optional<UserInfo> by_uid(unsigned uid) const override {
    std::vector<char> buf(16384);
    struct passwd pw, *found = nullptr;
    while (::getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) == ERANGE) buf.resize(buf.size() * 2);
    if (found == nullptr) return std::nullopt;
    return from(pw);
  }
  std::optional<unsigned> group_gid(const std::string& name) const override {
    std::vector<char> buf(16384);
    struct group gr, *found = nullptr;
    while (::getgrnam_r(name.c_str(), &gr, buf.data(), buf.size(), &found) == ERANGE) buf.resize(buf.size() * 2);
    if (found == nullptr) return std::nullopt;
    return static_cast<unsigned>(gr.gr_gid);
  }
  std::vector<UserInfo> login_users() const override {
    static std::mutex m;  // getpwent has one cursor per process
    std::lock_guard<std::mutex> lock(m);
    std::vector<UserInfo> out;
    ::setpwent();
    while (struct passwd* pw = ::getpwent()) {
      if (pw->pw_dir == nullptr || pw->pw_dir[0] != '/') continue;
      if (pw->pw_uid == 0 || (pw->pw_uid >= 1000 && pw->pw_uid < 65534)) out.push_back(from(*pw));
    }
    ::endpwent();
    return out;
  }
  std::vector<gid_t> groups_of(const std::string& user, gid_t gid) const override {
    int n = 64;
    std::vector<gid_t> groups(static_cast<std::size_t>(n));
    while (::getgrouplist(user.c_str(), gid, groups.data(), &n) < 0) groups.resize(static_cast<std::size_t>(n) + 16);
    groups.resize(static_cast<std::size_t>(n));
    return groups;
  }
  std::vector<std::string> group_members(unsigned gid) const override {
    std::vector<std::string> out;
    std::vector<char> buf(16384);
    struct group gr, *found = nullptr;
    while (::getgrgid_r(gid, &gr, buf.data(), buf.size(), &found) == ERANGE) buf.resize(buf.size() * 2);
    if (found != nullptr)
      for (char** m = gr.gr_mem; m != nullptr && *m != nullptr; ++m) out.emplace_back(*m);
    static std::mutex mu;
    std::lock_guard<std::mutex> lock(mu);
    ::setpwent();
    while (struct passwd* pw = ::getpwent())
      if (pw->pw_gid == gid && std::find(out.begin(), out.end(), pw->pw_name) == out.end()) out.emplace_back(pw->pw_name);
    ::endpwent();
    return out;
  }
};

}  // namespace

std::shared_ptr<UserDb> real_users() { return std::make_shared<RealUsers>(); }

}  // namespace paddock::host
