#include "policy/command_grant.h"

#include "policy/path_util.h"

namespace paddock {

std::string command_grant_flags(const std::string& path, const std::string& home, const FsView& fs) {
  const std::string typed = path::normalize(path);
  auto real = fs.canonical(typed);
  if (!real || *real == typed) return "--read " + typed + " (or its directory)";
  std::string grant = path::parent(*real);
  int depth = 0;
  for (std::string d = grant; d != "/" && d != home && depth < 8; d = path::parent(d), ++depth) {
    if (fs.kind(path::join(d, "package.json")) == FsView::Kind::File) {
      grant = d;
      break;
    }
  }
  return "--read " + typed + " --read " + grant;
}

}  // namespace paddock
