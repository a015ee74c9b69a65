// The project an undo command is about, and which sessions belong to it (issue 30 item 4).
#include "undo/project.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace paddock::undo {
namespace {

namespace fs = std::filesystem;

struct Dirs {
  std::string base;
  Dirs() {
    char t[] = "/tmp/paddock-project-XXXXXX";
    base = fs::canonical(::mkdtemp(t)).string();
  }
  ~Dirs() {
    std::error_code ec;
    fs::remove_all(base, ec);
  }
  std::string make(const std::string& rel) const {
    fs::create_directories(base + "/" + rel);
    return base + "/" + rel;
  }
};

TEST(Project, TheRepositorysTopLevelOrTheDirectoryItself) {
  Dirs d;
  const std::string repo = d.make("src/jq"), sub = d.make("src/jq/src/deep"), plain = d.make("src/dequal");
  fs::create_directories(repo + "/.git");
  EXPECT_EQ(project_of(sub, "").dir, repo);
  EXPECT_TRUE(project_of(sub, "").repository);
  EXPECT_EQ(project_of(repo, "").dir, repo);
  EXPECT_EQ(project_of(plain, "").dir, plain);
  EXPECT_FALSE(project_of(plain, "").repository);
  // A worktree's .git is a file.
  const std::string wt = d.make("src/jq-wt/a");
  std::ofstream(d.base + "/src/jq-wt/.git") << "gitdir: " << repo << "/.git/worktrees/x\n";
  EXPECT_EQ(project_of(wt, "").dir, d.base + "/src/jq-wt");
}

TEST(Project, ADotfilesRepositoryInHomeIsNotAProject) {
  Dirs d;
  const std::string home = d.make("home"), proj = d.make("home/src/dequal");
  fs::create_directories(home + "/.git");
  EXPECT_EQ(project_of(proj, home).dir, proj);
  EXPECT_FALSE(project_of(proj, home).repository);
  EXPECT_EQ(project_of(home, home).dir, home);
}

TEST(Project, ASessionBelongsWhenARootIsTheProjectHoldsItOrLiesInItsRepository) {
  const Project jq{"/h/src/jq", true}, dequal{"/h/src/dequal", false};
  EXPECT_TRUE(in_project({"/h/src/jq"}, jq));
  EXPECT_FALSE(in_project({"/h/src/jq"}, dequal));  // the user's report: jq's session from dequal
  EXPECT_FALSE(in_project({"/h/src/dequal"}, jq));
  EXPECT_FALSE(in_project({"/h/src/jqx"}, jq));  // by component, not by prefix
  EXPECT_TRUE(in_project({"/h"}, dequal));        // --allow ~ captured it
  EXPECT_TRUE(in_project({"/tmp", "/h/src/dequal"}, dequal));
  EXPECT_TRUE(in_project({"/h/src/jq/src"}, jq));  // started in a subdirectory of the repository
  EXPECT_FALSE(in_project({"/h/src/dequal/sub"}, dequal));  // outside a repository: not below the cwd
  EXPECT_FALSE(in_project({}, dequal));
}

}  // namespace
}  // namespace paddock::undo
