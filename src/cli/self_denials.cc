#include "cli/self_denials.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include "cli/footer.h"
#include "supervisor/denial.h"
#include "sys/display.h"

namespace paddock::cli {

std::vector<Denial> read_denials(const std::string& text, std::size_t* skipped) {
  std::vector<Denial> out;
  std::map<std::tuple<Denial::Layer, std::string, std::string>, std::size_t> index;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    auto j = nlohmann::json::parse(line, nullptr, false);
    auto d = j.is_discarded() ? Result<Denial>(make_error("not JSON")) : supervisor::denial_from_json(j);
    if (!d) {
      if (skipped) ++*skipped;
      continue;
    }
    auto key = std::make_tuple(d->layer, d->what, d->op);
    auto it = index.find(key);
    if (it == index.end()) {
      index.emplace(key, out.size());
      out.push_back(std::move(*d));
    } else {
      out[it->second] = std::move(*d);  // a later line carries the count so far
    }
  }
  return out;
}

int print_self_denials(bool json) {
  const char* file = std::getenv("PADDOCK_DENIALS");
  if (!file || !*file) {
    print_error(make_error("no record of denials here: PADDOCK_DENIALS is not set (paddock records them inside a "
                           "sandbox with namespaces, not with --exec or in the Landlock + seccomp fallback)",
                           "--denials"));
    return 2;
  }
  std::ifstream in(file);
  if (!in) {
    print_error(errno_error("cannot read the denials record", errno, file));
    return 2;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  std::size_t skipped = 0;
  std::vector<Denial> denials = read_denials(ss.str(), &skipped);
  if (json) {
    nlohmann::json a = nlohmann::json::array();
    for (const Denial& d : denials) a.push_back(supervisor::to_json(d));
    std::printf("%s\n", a.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return 0;
  }
  if (denials.empty()) std::printf("nothing refused so far (that paddock records: docs/supervisor.md)\n");
  // What the sandbox chose (paths, names, comm) is escaped on its way to the terminal.
  for (const Denial& d : denials) std::printf("%s\n", sys::display(supervisor::describe(d)).c_str());
  if (skipped > 0) std::printf("(%zu unreadable lines skipped)\n", skipped);
  return 0;
}

}  // namespace paddock::cli
