#include "cli/launcher.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

namespace paddock::cli {
namespace {

TEST(LauncherResolves, OnPathByNameOrAsTypedWithASlash) {
  char tmpl[] = "/tmp/paddock-launcher-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  std::ofstream(dir + "/agent") << "#!/bin/sh\n";
  std::ofstream(dir + "/plain") << "data\n";
  ASSERT_EQ(chmod((dir + "/agent").c_str(), 0755), 0);
  ASSERT_EQ(mkdir((dir + "/sub").c_str(), 0755), 0);

  EXPECT_TRUE(launcher_resolves("agent", "/", "/nonexistent:" + dir));
  EXPECT_FALSE(launcher_resolves("agent", "/", "/nonexistent:/usr/bin/none"));
  EXPECT_FALSE(launcher_resolves("plain", "/", dir)) << "not executable";
  EXPECT_FALSE(launcher_resolves("sub", "/", dir)) << "a directory";
  EXPECT_TRUE(launcher_resolves("agent", dir, "/nonexistent:")) << "an empty PATH entry is the cwd";
  EXPECT_TRUE(launcher_resolves(dir + "/agent", "/", ""));
  EXPECT_TRUE(launcher_resolves("./agent", dir, ""));
  EXPECT_FALSE(launcher_resolves("./agent", "/", dir)) << "with a slash, PATH is not searched";
  EXPECT_FALSE(launcher_resolves("", "/", dir));

  unlink((dir + "/agent").c_str());
  unlink((dir + "/plain").c_str());
  rmdir((dir + "/sub").c_str());
  rmdir(dir.c_str());
}

}  // namespace
}  // namespace paddock::cli
