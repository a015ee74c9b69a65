// `paddock run --undo -- sh -c '…'` doing each kind of change, then `paddock undo restore --yes`:
// the tree is exactly as before (issue 14). As root and as the unprivileged user (run-as.sh).
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include <gtest/gtest.h>

#include "helpers/test_util.h"

namespace ktest {
namespace {

namespace fs = std::filesystem;

RunOpts undo_opts(const World& w) {
  RunOpts o = w.opts();
  o.unset.push_back("XDG_STATE_HOME");
  return o;
}

// path, type, mode, content or target of everything under ROOT except SKIP (the probe copy).
std::string tree(const std::string& root, const std::string& skip_dir = "") {
  std::vector<std::string> lines;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec); it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const std::string p = it->path().string();
    if (!skip_dir.empty() && (p == skip_dir || p.rfind(skip_dir + "/", 0) == 0)) {
      it.disable_recursion_pending();
      continue;
    }
    struct stat st;
    if (::lstat(p.c_str(), &st) != 0) continue;
    char mode[16];
    std::snprintf(mode, sizeof(mode), "%06o", static_cast<unsigned>(st.st_mode));
    std::string l = p.substr(root.size()) + " " + mode;
    if (S_ISREG(st.st_mode)) l += " [" + read_file(p) + "]";
    if (S_ISLNK(st.st_mode)) l += " -> " + fs::read_symlink(p).string();
    lines.push_back(l);
  }
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (auto& l : lines) out += l + "\n";
  return out;
}

void seed_project(const World& w) {
  write_file(w.project + "/src/main.c", "int main() { return 0; }\n");
  write_file(w.project + "/run.sh", "#!/bin/sh\necho hi\n", 0755);
  write_file(w.project + "/docs/readme.md", "# readme\n");
  make_dirs(w.project + "/empty");
  ASSERT_EQ(::symlink("src/main.c", (w.project + "/link").c_str()), 0);
  write_file(w.project + "/node_modules/dep/index.js", "v1\n");
}

struct Case {
  const char* name;
  const char* script;
};

TEST(Undo, EveryKindOfChangeIsTakenBack) {
  KTEST_REQUIRE_BINARIES();
  const Case cases[] = {
      {"modify", "echo changed > src/main.c"},
      {"add", "mkdir -p new/deep && echo x > new/deep/file && echo y > added"},
      {"delete file", "rm src/main.c"},
      {"delete tree", "rm -rf docs"},
      {"delete empty dir", "rmdir empty"},
      {"chmod", "chmod 600 run.sh && chmod 700 docs"},
      {"symlink retarget", "rm link && ln -s /etc/passwd link"},
      {"file to symlink", "rm src/main.c && ln -s ../run.sh src/main.c"},
      {"dir to symlink", "rm -rf src && ln -s /tmp src"},
      {"rename", "mv docs documents && mv run.sh run2.sh"},
      {"truncate", ": > run.sh"},
      {"all at once",
       "echo c > src/main.c; rm -rf docs; rmdir empty; rm link; ln -s / link; mkdir x; echo y > x/y; chmod 700 run.sh"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    World w;
    seed_project(w);
    const std::string before = tree(w.project, w.probe);
    Proc r = w.paddock({"run", "--undo", "--", "sh", "-c", c.script}, undo_opts(w));
    ASSERT_EQ(r.code, 0) << describe(r);
    ASSERT_TRUE(contains(r.err, "undo: session ")) << describe(r);
    ASSERT_NE(tree(w.project, w.probe), before) << "the change did not happen";
    Proc rs = w.paddock({"undo", "restore", "--yes"}, undo_opts(w));
    ASSERT_EQ(rs.code, 0) << describe(rs);
    EXPECT_EQ(tree(w.project, w.probe), before);
  }
}

TEST(Undo, ExcludedFilesStayAsTheRunLeftThem) {
  KTEST_REQUIRE_BINARIES();
  World w;
  seed_project(w);
  Proc r = w.paddock({"run", "--undo", "--", "sh", "-c",
                      "echo v2 > node_modules/dep/index.js; echo new > node_modules/new.js; echo c > src/main.c"},
                     undo_opts(w));
  ASSERT_EQ(r.code, 0) << describe(r);
  Proc show = w.paddock({"undo", "show"}, undo_opts(w));
  EXPECT_TRUE(contains(show.out, "excluded  any node_modules")) << describe(show);
  Proc rs = w.paddock({"undo", "restore", "--yes"}, undo_opts(w));
  ASSERT_EQ(rs.code, 0) << describe(rs);
  EXPECT_EQ(read_file(w.project + "/src/main.c"), "int main() { return 0; }\n");
  EXPECT_EQ(read_file(w.project + "/node_modules/dep/index.js"), "v2\n");
  EXPECT_EQ(read_file(w.project + "/node_modules/new.js"), "new\n");
}

// An agent replaces a directory with a symlink to a place outside the project; the restore
// must recreate the directory and never write through the link.
TEST(Undo, APlantedSymlinkDoesNotRedirectTheRestore) {
  KTEST_REQUIRE_BINARIES();
  World w;
  seed_project(w);
  TempDir outside;
  const std::string victim = outside.path();
  Proc r = w.paddock({"run", "--undo", "--", "sh", "-c", "rm -rf src && ln -s " + victim + " src"}, undo_opts(w));
  ASSERT_EQ(r.code, 0) << describe(r);
  Proc rs = w.paddock({"undo", "restore", "--yes"}, undo_opts(w));
  ASSERT_EQ(rs.code, 0) << describe(rs);
  EXPECT_FALSE(exists(victim + "/main.c"));
  struct stat st;
  ASSERT_EQ(::lstat((w.project + "/src").c_str(), &st), 0);
  EXPECT_TRUE(S_ISDIR(st.st_mode));
  EXPECT_EQ(read_file(w.project + "/src/main.c"), "int main() { return 0; }\n");
}

TEST(Undo, RestoreAsksOrRefusesAndNamesHostChanges) {
  KTEST_REQUIRE_BINARIES();
  World w;
  seed_project(w);
  Proc r = w.paddock({"run", "--undo", "--", "sh", "-c", "echo agent > src/main.c; echo agent > run.sh"}, undo_opts(w));
  ASSERT_EQ(r.code, 0) << describe(r);
  // No terminal, no --yes: refused, nothing changed.
  Proc no = w.paddock({"undo", "restore"}, undo_opts(w));
  EXPECT_EQ(no.code, 1) << describe(no);
  EXPECT_TRUE(contains(no.err, "without a terminal")) << describe(no);
  EXPECT_EQ(read_file(w.project + "/src/main.c"), "agent\n");
  // The user edits a file after the run: the restore would overwrite it, so it refuses.
  write_file(w.project + "/run.sh", "the user's edit\n", 0755);
  Proc conflict = w.paddock({"undo", "restore", "--yes"}, undo_opts(w));
  EXPECT_EQ(conflict.code, 1) << describe(conflict);
  EXPECT_TRUE(contains(conflict.err, w.project + "/run.sh")) << describe(conflict);
  EXPECT_EQ(read_file(w.project + "/src/main.c"), "agent\n");
  Proc dry = w.paddock({"undo", "restore", "--dry-run", "--force"}, undo_opts(w));
  EXPECT_EQ(dry.code, 0) << describe(dry);
  EXPECT_TRUE(contains(dry.out, "modified  " + w.project + "/src/main.c")) << describe(dry);
  Proc forced = w.paddock({"undo", "restore", "--yes", "--force"}, undo_opts(w));
  ASSERT_EQ(forced.code, 0) << describe(forced);
  EXPECT_EQ(read_file(w.project + "/run.sh"), "#!/bin/sh\necho hi\n");
  // Bad input: clear errors.
  Proc bad = w.paddock({"undo", "restore", "--yes", "20990101-000000-abcd"}, undo_opts(w));
  EXPECT_NE(bad.code, 0);
  EXPECT_TRUE(contains(bad.err, "no session")) << describe(bad);
  Proc list = w.paddock({"undo", "list", "--json"}, undo_opts(w));
  EXPECT_EQ(list.code, 0);
  EXPECT_TRUE(contains(list.out, "\"snapshots\"")) << describe(list);
}

}  // namespace
}  // namespace ktest
