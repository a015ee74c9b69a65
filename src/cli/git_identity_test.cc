#include "cli/git_identity.h"

#include <gtest/gtest.h>

namespace paddock::cli {
namespace {

using Env = std::vector<std::pair<std::string, std::string>>;

TEST(GitIdentity, NameAndEmailBecomeAuthorAndCommitter) {
  std::string out = std::string("user.name\nAda Lovelace") + '\0' + "user.email\nada@example.com" + '\0';
  EXPECT_EQ(git_identity_env(out), (Env{{"GIT_AUTHOR_NAME", "Ada Lovelace"},
                                        {"GIT_COMMITTER_NAME", "Ada Lovelace"},
                                        {"GIT_AUTHOR_EMAIL", "ada@example.com"},
                                        {"GIT_COMMITTER_EMAIL", "ada@example.com"}}));
}

TEST(GitIdentity, TheLastValueWinsAsInGit) {
  std::string out = std::string("user.name\nGlobal") + '\0' + "user.name\nLocal" + '\0';
  EXPECT_EQ(git_identity_env(out), (Env{{"GIT_AUTHOR_NAME", "Local"}, {"GIT_COMMITTER_NAME", "Local"}}));
}

TEST(GitIdentity, NothingElsePassesAndImplausibleValuesAreLeftOut) {
  std::string out = std::string("user.signingkey\nABC") + '\0' + "credential.helper\nstore" + '\0' +
                    "user.name\nevil\x1b]0;title\x07" + '\0' + "user.email" + '\0';
  EXPECT_TRUE(git_identity_env(out).empty());
  EXPECT_TRUE(git_identity_env("").empty());
  EXPECT_TRUE(git_identity_env(std::string("user.name\n") + std::string(300, 'a') + '\0').empty());
}

}  // namespace
}  // namespace paddock::cli
