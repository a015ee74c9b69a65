#include "policy/command_setup.h"

namespace paddock {
namespace {

std::string last_component(const std::string& s) {
  auto slash = s.rfind('/');
  return slash == std::string::npos ? s : s.substr(slash + 1);
}

// How many arguments from argv[i] on match `conflict` (0: no match).
std::size_t matches(const std::vector<std::string>& argv, std::size_t i, const std::string& conflict) {
  auto space = conflict.find(' ');
  const std::string& a = argv[i];
  if (space == std::string::npos) {
    if (a == conflict || a.rfind(conflict + "=", 0) == 0) return 1;
    return 0;
  }
  std::string flag = conflict.substr(0, space), value = conflict.substr(space + 1);
  if (a == flag && i + 1 < argv.size() && argv[i + 1] == value) return 2;
  if (a == flag + "=" + value) return 1;
  bool short_flag = flag.size() == 2 && flag[0] == '-' && flag[1] != '-';
  if (short_flag && a == flag + value) return 1;
  return 0;
}

}  // namespace

CommandAdjustment adjust_command(const std::vector<std::string>& argv, const PolicyBuilder::CommandSetup& setup) {
  CommandAdjustment out;
  out.argv = argv;
  if (argv.empty() || setup.name.empty() || last_component(argv[0]) != setup.name) return out;
  out.applied = true;
  for (std::size_t i = 1; i < argv.size(); ++i) {
    if (argv[i] == "--") break;
    for (const std::string& c : setup.conflicts) {
      if (std::size_t n = matches(argv, i, c)) {
        out.conflicts.push_back(n == 2 ? argv[i] + " " + argv[i + 1] : argv[i]);
        i += n - 1;
        break;
      }
    }
  }
  out.argv.insert(out.argv.begin() + 1, setup.args.begin(), setup.args.end());
  return out;
}

}  // namespace paddock
