// Escape suite, the sensitive-path list entry by entry (issue 19, A). Driven by the list itself
// (src/policy/sensitive_paths.cc): a new entry is tested by construction, an entry dropped from
// the list or a mask skipped fails here. Every HOME-relative entry gets a distinct secret, once
// planted as a file and once as a directory holding a file, under `--allow ~` (the fake HOME of
// the test's World); the sandbox reads them all and none may show. A non-sensitive file beside
// them must show (the control: the run did read HOME). With namespaces and in the fallback, as
// root and as the unprivileged user.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include <gtest/gtest.h>

#include "helpers/test_util.h"
#include "policy/sensitive_paths.h"

namespace ktest {
namespace {

constexpr const char* kControl = "PADDOCK-KT-CONTROL-VISIBLE";

struct Planted {
  std::string entry;   // as in the list
  std::string read;    // the file the sandbox tries to read
  std::string secret;  // what it holds
};

// Plants every HOME-relative entry under w.home, as a file or as a directory with a file inside.
std::vector<Planted> plant_all(const World& w, bool as_directories) {
  // The World's own planted key and credentials sit inside .ssh and .aws: start from an empty HOME
  // (the project stays).
  remove_tree(w.home + "/.ssh");
  remove_tree(w.home + "/.aws");
  // The list, plus a fixed set that must stay hidden whatever the list says (an entry dropped
  // from the list is caught here and by ListsDoc in unit_policy).
  std::vector<std::string> entries;
  for (const auto& e : paddock::sensitive_entries())
    if (e.path[0] != '/') entries.push_back(e.path);
  for (const char* must : {".ssh", ".gnupg", ".aws", ".kube", ".config/gcloud", ".docker/config.json", ".netrc",
                           ".npmrc", ".pypirc", ".git-credentials", ".config/gh", ".cargo/credentials.toml",
                           ".pgpass", ".password-store", ".bash_history", ".mozilla", ".config/google-chrome"})
    if (std::find(entries.begin(), entries.end(), must) == entries.end()) entries.push_back(must);
  std::vector<Planted> out;
  int i = 0;
  for (const std::string& entry : entries) {
    ++i;
    Planted p;
    p.entry = entry;
    p.secret = "PADDOCK-KT-SENSITIVE-" + std::to_string(i) + "-" + std::to_string(getpid());
    std::string at = w.home + "/" + entry;
    p.read = as_directories ? at + "/secret" : at;
    write_file(p.read, p.secret + "\n", 0600);
    out.push_back(p);
  }
  write_file(w.home + "/notes.txt", std::string(kControl) + "\n");
  return out;
}

void expect_all_hidden(bool as_directories, bool fallback) {
  KTEST_REQUIRE_BINARIES();
  if (fallback && landlock_abi() < 1) GTEST_SKIP() << "no Landlock: no fallback on this host";
  if (!fallback && !user_namespaces_work()) GTEST_SKIP() << "user namespaces unavailable: the Fallback variant runs";
  World w;
  std::vector<Planted> planted = plant_all(w, as_directories);
  ASSERT_GT(planted.size(), 40u) << "the sensitive list looks truncated";
  // One run reads every planted file (and lists every planted directory) and the control.
  std::string script = "for f in \"$@\"; do cat -- \"$f\" 2>/dev/null; done; echo END";
  std::vector<std::string> args{"run", "--allow", "~", "--", "/bin/sh", "-c", script, "sh"};
  for (const Planted& p : planted) args.push_back(p.read);
  args.push_back(w.home + "/notes.txt");
  auto o = w.opts();
  if (fallback) o.env["PADDOCK_DANGER_DISABLE_NAMESPACES"] = "1";
  Proc r = w.paddock(args, o);
  ASSERT_TRUE(contains(r.out, "END")) << describe(r);
  EXPECT_TRUE(contains(r.out, kControl)) << "the control file under --allow ~ was not readable\n" << describe(r);
  int leaked = 0;
  for (const Planted& p : planted) {
    bool shown = contains(r.out, p.secret);
    leaked += shown;
    EXPECT_FALSE(shown) << "~/" << p.entry << (as_directories ? " (a directory)" : " (a file)")
                        << " is readable under --allow ~" << (fallback ? " in the fallback" : "");
  }
  EXPECT_EQ(leaked, 0) << describe(r);
  // And nothing was changed on the host by looking.
  for (const Planted& p : planted) EXPECT_EQ(read_file(p.read), p.secret + "\n") << p.entry;
}

TEST(Escape, SensitiveEntriesHiddenAsFiles) { expect_all_hidden(false, false); }
TEST(Escape, SensitiveEntriesHiddenAsDirectories) { expect_all_hidden(true, false); }
TEST(Escape, SensitiveEntriesHiddenAsFilesFallback) { expect_all_hidden(false, true); }
TEST(Escape, SensitiveEntriesHiddenAsDirectoriesFallback) { expect_all_hidden(true, true); }

// --allow on a parent of HOME (not naming HOME): the real HOME's secrets stay hidden.
void expect_home_hidden_under_parent(bool fallback) {
  KTEST_REQUIRE_BINARIES();
  if (fallback && landlock_abi() < 1) GTEST_SKIP() << "no Landlock: no fallback on this host";
  World w;
  auto o = w.opts();
  if (fallback) o.env["PADDOCK_DANGER_DISABLE_NAMESPACES"] = "1";
  write_file(w.home + "/notes.txt", std::string(kControl) + "\n");
  Proc r = w.paddock({"run", "--allow", w.root.path(), "--", "/bin/sh", "-c",
                      "cat -- \"$1\" \"$2\" \"$3\" 2>/dev/null; echo END", "sh", w.ssh_key, w.aws_creds,
                      w.home + "/notes.txt"},
                     o);
  ASSERT_TRUE(contains(r.out, "END")) << describe(r);
  EXPECT_FALSE(contains(r.out, World::kSecret)) << describe(r);
}

TEST(Escape, RealHomeSecretsHiddenUnderAnAllowedParent) { expect_home_hidden_under_parent(false); }
TEST(Escape, RealHomeSecretsHiddenUnderAnAllowedParentFallback) { expect_home_hidden_under_parent(true); }

// The absolute entries (/etc/shadow, /etc/ssh host keys, /root ...): what exists on this host and
// the test runner can read is read inside under `--read /` and must not show. As root this is
// everything that exists; unprivileged, what the runner cannot read proves nothing and is left out.
TEST(Escape, SensitiveSystemEntriesHidden) {
  KTEST_REQUIRE_BINARIES();
  World w;
  struct Target {
    std::string entry, file, line;
  };
  std::vector<Target> targets;
  for (const auto& e : paddock::sensitive_entries()) {
    if (e.path[0] != '/') continue;
    std::string file = e.path;
    struct stat st;
    if (stat(file.c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      // The first readable, non-empty regular file directly inside.
      std::string found;
      Proc ls = run({"/bin/ls", "-A", file});
      for (const std::string& n : split_lines(ls.out)) {
        std::string f = file + "/" + n;
        struct stat fs;
        if (stat(f.c_str(), &fs) == 0 && S_ISREG(fs.st_mode) && !read_file(f).empty()) {
          found = f;
          break;
        }
      }
      if (found.empty()) continue;
      file = found;
    }
    std::string content = read_file(file);
    std::string line;
    for (const std::string& l : split_lines(content))
      if (l.size() >= 8 && l[0] != '#') {
        line = l;
        break;
      }
    if (line.empty()) continue;
    targets.push_back({e.path, file, line});
  }
  if (targets.empty()) GTEST_SKIP() << "no absolute sensitive entry this runner can read exists on this host";
  std::vector<std::string> args{"run", "--read", "/", "--", "/bin/sh", "-c",
                                "for f in \"$@\"; do cat -- \"$f\" 2>/dev/null; done; echo END", "sh"};
  for (const Target& t : targets) args.push_back(t.file);
  Proc r = w.paddock(args);
  ASSERT_TRUE(contains(r.out, "END")) << describe(r);
  for (const Target& t : targets)
    EXPECT_FALSE(contains(r.out, t.line)) << t.entry << " (" << t.file << ") is readable under --read /";
}

}  // namespace
}  // namespace ktest
