// For unit tests of the public face (paddock/undo.h) on a real tree: a temporary directory with
// a project in it, a policy that lets a run write the project, and a context whose undo store
// lies in the temporary directory. Header-only, included by *_test.cc files only.
#pragma once

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "paddock/undo.h"
#include "undo/fake_rig.h"

namespace paddock::undo::rig {

inline void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::trunc) << text;
}
inline std::string read(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

struct FaceRig {
  TempDir tmp;
  std::string project = tmp.path() + "/proj";
  std::string store_dir = tmp.path() + "/paddock/undo";  // a store is opened as .../paddock/undo

  FaceRig() {
    std::filesystem::create_directory(project);
    write(project + "/a.txt", "one\n");
  }
  // A run in DIR (PROJECT when empty) that may write it, as --allow gives it.
  Policy policy_for(const std::string& dir = {}) const {
    Policy p;
    p.cwd = dir.empty() ? project : dir;
    PathRule rule;
    rule.path = rule.given = p.cwd;
    rule.access = Access::ReadWrite;
    rule.origin = {Origin::Kind::Flag, "--allow"};
    p.paths.push_back(rule);
    return p;
  }
  HostContext context() const {
    HostContext ctx;
    ctx.state.user_dir = tmp.path() + "/paddock";
    ctx.state.undo_dir = store_dir;
    return ctx;
  }
};

}  // namespace paddock::undo::rig
