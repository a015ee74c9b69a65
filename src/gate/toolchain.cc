#include "gate/toolchain.h"

namespace paddock::gate {
namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

std::optional<std::string> toolchain_name(const std::vector<std::string_view>& parts) {
  if (parts.empty()) return std::nullopt;
  const std::string_view name = parts.back();
  if (name == "sitecustomize.py" || name == "usercustomize.py")
    return std::string("Python imports it at every start of an interpreter that has its directory on its path");
  if (name == "pyvenv.cfg")
    return std::string("names the interpreter a virtual environment's python runs (editors start it on opening the folder)");
  if (ends_with(name, ".pth") && parts.size() >= 2 &&
      (parts[parts.size() - 2] == "site-packages" || parts[parts.size() - 2] == "dist-packages"))
    return std::string("Python runs its import lines at every start of the environment's interpreter (editors start it "
                       "on opening the folder)");
  return std::nullopt;
}

}  // namespace paddock::gate
