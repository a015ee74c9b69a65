// For unit tests of the undo engine: a temporary directory, and a SnapshotManager over a fake tree
// (fake_tree_fs.h) with a real store and a fake of the gate's check around a restore's writes.
// Header-only, included by *_test.cc files only.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "undo/fake_tree_fs.h"
#include "undo/snapshot_manager.h"
#include "undo/store.h"

namespace paddock::undo::rig {

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/paddock-undo-test-XXXXXX";
    path_ = ::mkdtemp(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    // Test trees may hold read-only directories.
    for (auto it = std::filesystem::recursive_directory_iterator(path_, ec); it != std::filesystem::recursive_directory_iterator(); ++it) {
      if (it->is_directory(ec) && !it->is_symlink(ec)) ::chmod(it->path().c_str(), 0700);
    }
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The gate's check around a restore's writes, as a fake: what it was asked, and what it says.
struct FakeCheck {
  int taken = 0, finished = 0;
  std::vector<gate::Area> areas;
  std::vector<LeftBehind> to_report;   // what after() returns
  std::vector<std::string> asked;      // paths to ask TRUSTED about in after(); answers in ANSWERS
  std::map<std::string, bool> answers;
};

inline WriteCheck fake_check(const std::shared_ptr<FakeCheck>& fc) {
  return [fc](const std::vector<gate::Area>& areas) -> CheckAfter {
    ++fc->taken;
    fc->areas = areas;
    return [fc](const gate::Trusted& trusted) {
      ++fc->finished;
      for (const auto& p : fc->asked) fc->answers[p] = trusted(p);
      return fc->to_report;
    };
  };
}

// A SnapshotManager over a fake tree mounted at /fake/proj, with a real store in a temp dir.
struct FakeRig {
  TempDir dir;
  std::shared_ptr<FakeTreeFs> tree = std::make_shared<FakeTreeFs>();
  std::shared_ptr<FakeCheck> check = std::make_shared<FakeCheck>();
  std::unique_ptr<Store> store;
  std::unique_ptr<SnapshotManager> mgr;
  SessionInfo session;

  explicit FakeRig(std::vector<Exclude> excludes = default_excludes(), std::string home = "/fake") {
    auto s = Store::open(dir.path() + "/state/paddock/undo", true);
    if (!s) ADD_FAILURE() << s.error().describe();
    store = std::move(*s);
    store->set_syncfs(false);
    mgr = std::make_unique<SnapshotManager>(*store, [t = tree](const std::string& root) -> Result<std::shared_ptr<TreeFs>> {
      if (root != "/fake/proj") return make_error("unknown root " + root);
      return std::shared_ptr<TreeFs>(t);
    }, fake_check(check));
    Scope scope;
    scope.roots = {"/fake/proj"};
    scope.home = std::move(home);
    scope.excludes = std::move(excludes);
    auto b = mgr->begin(scope, {"agent"}, "/fake/proj");
    if (!b) ADD_FAILURE() << b.error().describe();
    session = *b;
  }
  int snap(const std::string& label = "") {
    auto r = mgr->snapshot(session, label);
    EXPECT_TRUE(r) << r.error().describe();
    return r ? r->n : -1;
  }
  RestoreOutcome restore(int n, std::vector<std::string> paths = {}, bool force = false, bool dry_run = false) {
    RestoreRequest req;
    req.session = session.id;
    req.target = n;
    req.paths = std::move(paths);
    req.force = force;
    req.dry_run = dry_run;
    auto r = mgr->restore(req);
    EXPECT_TRUE(r) << r.error().describe();
    auto s = store->load_session(session.id);
    if (s) session = *s;
    return r ? *r : RestoreOutcome{};
  }
};

}  // namespace paddock::undo::rig
