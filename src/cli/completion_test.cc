#include "cli/completion.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "cli/app.h"

namespace paddock::cli {
namespace {

std::string script(Shell s) {
  CLI::App app;
  build_app(app);
  return completion_script(app, s, "paddock 9.9");
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(Completion, BashTablesComeFromTheTree) {
  const std::string b = script(Shell::Bash);
  EXPECT_TRUE(has(b, "  ['paddock']='run why doctor mcp integrate host jail undo checkpoint completion version'\n")) << b.substr(0, 400);
  EXPECT_TRUE(has(b, "  ['paddock jail']='create exec enter list show rm diff sync prune'\n"));
  EXPECT_TRUE(has(b, "  ['paddock jail create|--workspace']='choice host copy overlay worktree'\n"));
  EXPECT_TRUE(has(b, "  ['paddock run|--backend']='choice native bubblewrap systemd-run'\n"));
  EXPECT_TRUE(has(b, "  ['paddock run|--profile']='profile'\n"));
  EXPECT_TRUE(has(b, "  ['paddock run|--allow']='path'\n"));
  EXPECT_TRUE(has(b, "  ['paddock jail exec|0']='jail'\n"));
  EXPECT_TRUE(has(b, "  ['paddock jail exec|1+']='command'\n"));
  EXPECT_TRUE(has(b, "  ['paddock undo restore|0']='session'\n"));
  EXPECT_FALSE(has(b, "__man"));
  // Names from files are read, never handed to compgen -W (which expands them).
  EXPECT_FALSE(has(b, "compgen -W"));
  EXPECT_TRUE(has(b, "complete -F _paddock paddock\n"));
}

TEST(Completion, ZshAndFishSayTheSame) {
  const std::string z = script(Shell::Zsh);
  EXPECT_EQ(z.rfind("#compdef paddock\n", 0), 0u);
  EXPECT_TRUE(has(z, "'--workspace=[How the workspace is made (docs/jails.md) (default copy)]:host|copy|overlay|worktree:(host copy overlay worktree)'"))
      << z;
  EXPECT_TRUE(has(z, "'1:name:_paddock_dynamic jail'"));
  EXPECT_TRUE(has(z, "'*::command:_normal'"));
  const std::string f = script(Shell::Fish);
  EXPECT_TRUE(has(f, "complete -c paddock -n '__paddock_at \\'paddock jail create\\'' -l 'workspace' -x -a 'host copy overlay worktree'"))
      << f;
  EXPECT_TRUE(has(f, "-a '(__paddock_dynamic jail)'"));
}

// Names a completion asks paddock for (profiles, jails, sessions) come from files a sandbox may
// have been able to name (a profile under an --allow'ed ~/.config): bash must never evaluate them.
// The stand-in below answers `__complete` with names that are shell code, as a paddock that did
// not filter them would; completing must offer them at most, never run them.
TEST(Completion, BashNeverEvaluatesNamesFromFiles) {
  if (std::system("command -v bash >/dev/null 2>&1") != 0) GTEST_SKIP() << "bash is not installed";
  char tmpl[] = "/tmp/paddock-completion-test.XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  const std::string stub = dir + "/paddock";
  {
    std::ofstream s(stub);
    s << "#!/bin/sh\nprintf '%s\\n' mine '$(touch " << dir << "/pwned1)' '`touch " << dir
      << "/pwned2`' '${x:=$(touch " << dir << "/pwned3)}'\n";
  }
  ASSERT_EQ(::chmod(stub.c_str(), 0755), 0);
  {
    std::ofstream s(dir + "/paddock.bash");
    s << script(Shell::Bash);
  }
  const std::string cmd = "cd " + dir + " && bash -c 'source ./paddock.bash; for w in \"\" m \\$ \\` \\$\\{; do "
                          "COMP_WORDS=(" + stub + " run --profile \"$w\"); COMP_CWORD=3; COMPREPLY=(); _paddock; "
                          "printf \"%s\\n\" \"${COMPREPLY[@]}\"; done' >" + dir + "/offered 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream offered(dir + "/offered");
  std::stringstream ss;
  ss << offered.rdbuf();
  EXPECT_NE(ss.str().find("mine\n"), std::string::npos) << ss.str();
  for (const char* p : {"/pwned1", "/pwned2", "/pwned3"})
    EXPECT_NE(::access((dir + p).c_str(), F_OK), 0) << "completing a profile ran code from its name (" << p << ")";
  std::system(("rm -rf " + dir).c_str());
}

}  // namespace
}  // namespace paddock::cli
