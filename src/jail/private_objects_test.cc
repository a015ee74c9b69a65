// The private object directory's verifying import, the refs check and the check of a
// repository's own objects, with the real git and what a hostile run could leave in a store.
#include "jail/private_objects.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>

#include <gtest/gtest.h>

#include "jail/object_check.h"
#include "jail/ref_watch.h"

namespace paddock::jail {
namespace {

std::string sh(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  pclose(p);
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

class PrivateObjectsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (access("/usr/bin/git", X_OK) != 0) GTEST_SKIP() << "git is not installed";
    char t[] = "/tmp/paddock-objects-test-XXXXXX";
    dir_ = mkdtemp(t);
    repo_ = dir_ + "/repo";
    ASSERT_EQ(std::system(("git init -q -b main '" + repo_ + "' && cd '" + repo_ +
                           "' && echo alpha >a.txt && git add a.txt && "
                           "git -c user.name=t -c user.email=t@t commit -q -m base")
                              .c_str()),
              0);
    auto p = PrivateObjects::prepare(repo_ + "/.git/objects", dir_ + "/store", dir_ + "/work", "sha1");
    ASSERT_TRUE(p.ok()) << p.error().describe();
    objects_ = std::make_unique<PrivateObjects>(std::move(*p));
  }
  void TearDown() override {
    if (!dir_.empty()) std::system(("chmod -R u+rwx '" + dir_ + "'; rm -rf '" + dir_ + "'").c_str());
  }
  // git in the repository, with the store as its object directory (as a run sees it).
  std::string in_store(const std::string& cmd) {
    return sh("cd '" + repo_ + "' && export GIT_OBJECT_DIRECTORY='" + dir_ + "/store' GIT_ALTERNATE_OBJECT_DIRECTORIES='" +
              repo_ + "/.git/objects' && " + cmd);
  }
  std::string in_repo(const std::string& cmd) { return sh("cd '" + repo_ + "' && " + cmd); }
  static std::string path_of(const std::string& objects, const std::string& name) {
    return objects + "/" + name.substr(0, 2) + "/" + name.substr(2);
  }

  std::string dir_, repo_;
  std::unique_ptr<PrivateObjects> objects_;
};

TEST_F(PrivateObjectsTest, MountsTheStoreOverTheObjectsAndTheObjectsReadOnlyInsideIt) {
  auto m = objects_->mounts();
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].sandbox_path, repo_ + "/.git/objects");
  EXPECT_EQ(m[0].host_path, dir_ + "/store");
  EXPECT_EQ(m[0].access, Access::ReadWrite);
  EXPECT_EQ(m[1].sandbox_path, repo_ + "/.git/objects/" + kSourceObjects);
  EXPECT_EQ(m[1].host_path, repo_ + "/.git/objects");
  EXPECT_EQ(m[1].access, Access::Read);
  EXPECT_TRUE(m[0].needs_namespaces && m[1].needs_namespaces);
}

TEST_F(PrivateObjectsTest, NewObjectsAreImportedAndLeaveTheStore) {
  const std::string blob = in_store("echo new | git hash-object -w --stdin");
  ASSERT_EQ(blob.size(), 40u);
  EXPECT_NE(in_repo("git cat-file -t " + blob + " 2>&1"), "blob");
  auto r = objects_->import();
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_TRUE(r->failure.empty()) << r->failure;
  EXPECT_EQ(r->objects, 1u);
  EXPECT_EQ(in_repo("git cat-file -p " + blob), "new");
  struct stat st;
  EXPECT_NE(lstat(path_of(dir_ + "/store", blob).c_str(), &st), 0) << "an imported object stays in the store";
  EXPECT_EQ(in_repo("git fsck --no-dangling >/dev/null 2>&1 && echo ok"), "ok");
}

TEST_F(PrivateObjectsTest, AnObjectUnderAFalseNameIsNeverImportedUnderIt) {
  // The file of HEAD's blob (a.txt) in the store, holding other content.
  const std::string real = in_repo("git rev-parse HEAD:a.txt");
  const std::string fake = in_store("echo payload | git hash-object -w --stdin");
  ASSERT_EQ(std::system(("mkdir -p '" + dir_ + "/store/" + real.substr(0, 2) + "' && cp '" +
                         path_of(dir_ + "/store", fake) + "' '" + path_of(dir_ + "/store", real) + "'")
                            .c_str()),
            0);
  auto r = objects_->import();
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(in_repo("git cat-file -p " + real), "alpha");
  EXPECT_EQ(in_repo("git cat-file -p " + fake), "payload");  // imported under its true name
  EXPECT_EQ(in_repo("git fsck --no-dangling >/dev/null 2>&1 && echo ok"), "ok");
}

TEST_F(PrivateObjectsTest, TheStoresAlternatesAreNeverFollowed) {
  // Another repository of the user's, which the run could not read: the store names it.
  ASSERT_EQ(std::system(("git init -q '" + dir_ + "/other' && cd '" + dir_ + "/other' && echo secret >s && git add s")
                            .c_str()),
            0);
  const std::string secret = sh("cd '" + dir_ + "/other' && git rev-parse :s");
  std::ofstream(dir_ + "/store/info/alternates") << dir_ << "/other/.git/objects\n";
  in_store("echo new | git hash-object -w --stdin");  // something to import
  auto r = objects_->import();
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_NE(in_repo("git cat-file -t " + secret + " 2>/dev/null"), "blob") << "the store's alternates were followed";
}

TEST_F(PrivateObjectsTest, ObjectsThatPointAtMissingOnesAreRefusedWhole) {
  const std::string commit = in_store(
      "printf 'tree 1111111111111111111111111111111111111111\\nauthor a <a> 1 +0000\\ncommitter a <a> 1 +0000\\n\\nx\\n' "
      "| git hash-object -t commit -w --stdin --literally");
  const std::string blob = in_store("echo fine | git hash-object -w --stdin");
  auto r = objects_->import();
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_FALSE(r->failure.empty());
  EXPECT_NE(in_repo("git cat-file -t " + commit + " 2>/dev/null"), "commit");
  EXPECT_NE(in_repo("git cat-file -t " + blob + " 2>/dev/null"), "blob");
  EXPECT_EQ(in_repo("ls .git/objects/pack"), "") << "a refused import left files in the repository";
}

TEST_F(PrivateObjectsTest, RefsAreCheckedAgainstTheRepositoryAfterTheImport) {
  auto sealed = SealedGit::open(dir_ + "/work/git", {repo_ + "/.git/objects"});
  ASSERT_TRUE(sealed.ok()) << sealed.error().describe();
  const std::string base = in_repo("git rev-parse HEAD");
  auto watch = RefWatch::before(repo_ + "/.git", {"refs"}, {repo_ + "/.git/HEAD"});
  // A commit made the run's way (in the store), a ref naming nothing, a replace ref.
  const std::string good = in_store("echo b >b && git add b && git -c user.name=t -c user.email=t@t commit -q -m two && "
                                    "git rev-parse HEAD");
  in_repo("echo 0123456789012345678901234567890123456789 >.git/refs/heads/bad && mkdir -p .git/refs/replace && "
          "echo " + good + " >.git/refs/replace/" + base);
  ASSERT_TRUE(objects_->import().ok());
  auto lines = watch.after(*sealed, repo_ + "/.git/objects");
  EXPECT_EQ(in_repo("git rev-parse main"), good) << "an ordinary commit was not published";
  struct stat st;
  EXPECT_NE(lstat((repo_ + "/.git/refs/heads/bad").c_str(), &st), 0);
  EXPECT_NE(lstat((repo_ + "/.git/refs/replace/" + base).c_str(), &st), 0);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[0].find("refs/heads/bad not published"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("refs/replace/" + base + " not published"), std::string::npos) << lines[1];
}

TEST_F(PrivateObjectsTest, ObjectsRewrittenInPlaceAreMovedAside) {
  auto sealed = SealedGit::open(dir_ + "/work/git", {});
  ASSERT_TRUE(sealed.ok());
  auto check = ObjectCheck::start(repo_ + "/.git/objects");
  const std::string real = in_repo("git rev-parse HEAD:a.txt");
  const std::string added = in_repo("echo added | git hash-object -w --stdin");
  const std::string fake_file = sh("d=$(mktemp -d) && git init -q --bare $d && echo payload | git --git-dir=$d hash-object -w --stdin >/dev/null && "
                                   "f=$(find $d/objects -type f -path '*/objects/??/*') && cp $f '" + dir_ + "/fake' && rm -rf $d && echo ok");
  ASSERT_EQ(fake_file, "ok");
  ASSERT_EQ(std::system(("rm -f '" + path_of(repo_ + "/.git/objects", real) + "' && cp '" + dir_ + "/fake' '" +
                         path_of(repo_ + "/.git/objects", real) + "'")
                            .c_str()),
            0);
  auto lines = check.after(*sealed, dir_ + "/work");
  ASSERT_EQ(lines.size(), 1u) << (lines.empty() ? "" : lines[0]);
  EXPECT_NE(lines[0].find(real.substr(2)), std::string::npos) << lines[0];
  struct stat st;
  EXPECT_NE(lstat(path_of(repo_ + "/.git/objects", real).c_str(), &st), 0);
  EXPECT_EQ(lstat(path_of(repo_ + "/.git/objects", added).c_str(), &st), 0) << "a good object was moved";
}

}  // namespace
}  // namespace paddock::jail
