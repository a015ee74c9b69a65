// The host's users and groups as paddock host sees them: by name, by uid, every home. A test
// gives the config checks a fixed table instead of the real passwd database.
#pragma once

#include <sys/types.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace paddock::host {

struct UserInfo {
  std::string name;
  unsigned uid = 0;
  unsigned gid = 0;
  std::string home;
};

class UserDb {
 public:
  virtual ~UserDb() = default;
  virtual std::optional<UserInfo> by_name(const std::string& name) const = 0;
  virtual std::optional<UserInfo> by_uid(unsigned uid) const = 0;
  virtual std::optional<unsigned> group_gid(const std::string& name) const = 0;
  // Root and every login user (uid >= 1000 and not nobody): whose homes "a user's whole home"
  // means for the roots check.
  virtual std::vector<UserInfo> login_users() const = 0;
  // The supplementary groups of USER (with GID, its primary group), as initgroups would set them.
  virtual std::vector<gid_t> groups_of(const std::string& user, gid_t gid) const = 0;
  // The names of the members of group GID (its member list and the users whose primary group it is).
  virtual std::vector<std::string> group_members(unsigned gid) const = 0;
};

// The real database: /etc/passwd and /etc/group (users.cc says why not NSS).
std::shared_ptr<UserDb> real_users();

// A fixed table, for tests.
class FakeUsers final : public UserDb {
 public:
  FakeUsers& user(const std::string& name, unsigned uid, unsigned gid, const std::string& home) {
    users_.push_back({name, uid, gid, home});
    return *this;
  }
  FakeUsers& group(const std::string& name, unsigned gid, std::vector<std::string> members = {}) {
    groups_[name] = {gid, std::move(members)};
    return *this;
  }
  std::optional<UserInfo> by_name(const std::string& name) const override {
    for (const auto& u : users_)
      if (u.name == name) return u;
    return std::nullopt;
  }
  std::optional<UserInfo> by_uid(unsigned uid) const override {
    for (const auto& u : users_)
      if (u.uid == uid) return u;
    return std::nullopt;
  }
  std::optional<unsigned> group_gid(const std::string& name) const override {
    auto it = groups_.find(name);
    if (it == groups_.end()) return std::nullopt;
    return it->second.first;
  }
  std::vector<UserInfo> login_users() const override {
    std::vector<UserInfo> out;
    for (const auto& u : users_)
      if (u.uid == 0 || (u.uid >= 1000 && u.uid < 65534)) out.push_back(u);
    return out;
  }
  std::vector<gid_t> groups_of(const std::string& user, gid_t gid) const override {
    std::vector<gid_t> out{gid};
    for (const auto& [name, g] : groups_)
      for (const auto& m : g.second)
        if (m == user && g.first != gid) out.push_back(g.first);
    return out;
  }
  std::vector<std::string> group_members(unsigned gid) const override {
    std::vector<std::string> out;
    for (const auto& [name, g] : groups_)
      if (g.first == gid) out = g.second;
    for (const auto& u : users_)
      if (u.gid == gid) out.push_back(u.name);
    return out;
  }

 private:
  std::vector<UserInfo> users_;
  std::map<std::string, std::pair<unsigned, std::vector<std::string>>> groups_;
};

}  // namespace paddock::host
