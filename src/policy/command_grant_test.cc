#include "policy/command_grant.h"

#include <gtest/gtest.h>

#include "policy/fake_fs.h"

namespace paddock {
namespace {

TEST(CommandGrant, PlainFileIsNamedWithItsDirectoryAsTheAlternative) {
  FakeFs fs;
  fs.file("/opt/tool/bin/run");
  EXPECT_EQ(command_grant_flags("/opt/tool/bin/run", "/home/u", fs), "--read /opt/tool/bin/run (or its directory)");
}

TEST(CommandGrant, NpmLauncherGetsItsLinkAndItsPackage) {
  FakeFs fs;
  fs.dir("/home/u/.npm-global/bin").file("/home/u/.npm-global/lib/node_modules/@openai/codex/bin/codex.js");
  fs.file("/home/u/.npm-global/lib/node_modules/@openai/codex/package.json");
  fs.symlink("/home/u/.npm-global/bin/codex", "../lib/node_modules/@openai/codex/bin/codex.js");
  EXPECT_EQ(command_grant_flags("/home/u/.npm-global/bin/codex", "/home/u", fs),
            "--read /home/u/.npm-global/bin/codex --read /home/u/.npm-global/lib/node_modules/@openai/codex");
}

TEST(CommandGrant, LinkWithoutAPackageGetsTheTargetsDirectoryNeverHome) {
  FakeFs fs;
  fs.dir("/home/u/.local/bin").file("/home/u/tools/x/run.sh").file("/home/u/package.json");
  fs.symlink("/home/u/.local/bin/x", "/home/u/tools/x/run.sh");
  EXPECT_EQ(command_grant_flags("/home/u/.local/bin/x", "/home/u", fs),
            "--read /home/u/.local/bin/x --read /home/u/tools/x");
}

}  // namespace
}  // namespace paddock
