// Lexical path helpers shared by the builder and `why`. No filesystem access.
#pragma once

#include <string>
#include <string_view>

namespace paddock::path {

// Collapses "//", "." and ".." in an absolute path ("/a/./b/../c" -> "/a/c"). ".." at the root
// stays at the root. A relative input is treated as if it started with "/".
std::string normalize(std::string_view abs_path);

// "/a" + "b/c" -> "/a/b/c"; "/" + "x" -> "/x". `rel` must be relative.
std::string join(std::string_view dir, std::string_view rel);

// "/a/b" -> "/a"; "/a" -> "/"; "/" -> "/".
std::string parent(std::string_view abs_path);

// True when `p` is `root` or lies below it, component-wise ("/ab" is not under "/a").
bool is_at_or_under(std::string_view p, std::string_view root);
// True when `p` lies strictly below `root`.
bool is_strictly_under(std::string_view p, std::string_view root);

}  // namespace paddock::path
