#include "mcp/workspace.h"

#include <cerrno>
#include <cstdlib>
#include <vector>

#include "sys/remove_tree.h"

namespace paddock::mcp {

// Whatever the code made of it: no depth limit, modes it took away restored (sys/remove_tree.h).
void remove_tree(const std::string& path) { (void)sys::remove_tree(path); }

Result<Workspace> Workspace::create(const std::string& root) {
  std::string tmpl = root + "/ws.XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!::mkdtemp(buf.data())) return errno_error("cannot create a workspace", errno, root);
  Workspace w;
  w.path_ = buf.data();
  return w;
}

Workspace::~Workspace() { remove(); }

Workspace& Workspace::operator=(Workspace&& o) noexcept {
  if (this != &o) {
    remove();
    path_ = std::move(o.path_);
    o.path_.clear();
  }
  return *this;
}

void Workspace::remove() {
  if (path_.empty()) return;
  remove_tree(path_);
  path_.clear();
}

}  // namespace paddock::mcp
