#include "policy/passwd_entry.h"

#include <gtest/gtest.h>
#include <pwd.h>
#include <unistd.h>

#include <vector>

namespace paddock {
namespace {

constexpr const char* kPasswd =
    "root:x:0:0:root:/root:/bin/bash\n"
    "daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
    "\n"
    "u:x:1000:1000:U,,,:/home/u:/bin/bash\n"
    "dup:x:1000:1000::/home/dup:/bin/sh\n"
    "empty:x:1001:1001:::\n";

TEST(PasswdEntry, FilesFirstReadsTheFirstMatchingLine) {
  const char* ns = "# comment\npasswd:         files systemd\ngroup: files\n";
  auto e = passwd_from_files(1000, ns, kPasswd);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->name, "u");
  EXPECT_EQ(e->dir, "/home/u");
  e = passwd_from_files(1001, ns, kPasswd);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->name, "empty");
  EXPECT_EQ(e->dir, "");
  EXPECT_FALSE(passwd_from_files(4242, ns, kPasswd).has_value());  // not there: ask NSS
  EXPECT_TRUE(passwd_from_files(0, "passwd: files\n", kPasswd).has_value());
  EXPECT_TRUE(passwd_from_files(0, "passwd: files # x\n", "root:x:0:0:root:/root:/bin/bash").has_value());
}

TEST(PasswdEntry, AnythingElseGoesToNss) {
  for (const char* ns : {"passwd: sss files\n", "passwd: compat\n", "passwd: files [NOTFOUND=return] ldap\n",
                         "group: files\n", "", "passwd: files\npasswd: ldap\n", "passwd: filesx\n"}) {
    EXPECT_FALSE(passwd_from_files(1000, ns, kPasswd).has_value()) << ns;
  }
  const char* ns = "passwd: files\n";
  EXPECT_FALSE(passwd_from_files(1000, ns, "+::::::\nu:x:1000:1000::/home/u:/bin/sh\n").has_value());
  EXPECT_FALSE(passwd_from_files(1000, ns, "# c\nu:x:1000:1000::/home/u:/bin/sh\n").has_value());
  EXPECT_FALSE(passwd_from_files(1000, ns, "u:x:1000:1000:/home/u:/bin/sh\n").has_value());  // 6 fields
  EXPECT_FALSE(passwd_from_files(1000, ns, "u:x:1000:1000::/home/u:/bin/sh:extra\n").has_value());
}

// On this machine the cheap answer is getpwuid's answer.
TEST(PasswdEntry, AgreesWithGetpwuid) {
  struct passwd pw {};
  struct passwd* found = nullptr;
  std::vector<char> buf(16384);
  ASSERT_EQ(::getpwuid_r(::getuid(), &pw, buf.data(), buf.size(), &found), 0);
  auto e = lookup_passwd(::getuid());
  if (found == nullptr) {
    EXPECT_FALSE(e.has_value());
    return;
  }
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->name, found->pw_name);
  EXPECT_EQ(e->dir, found->pw_dir);
}

}  // namespace
}  // namespace paddock
