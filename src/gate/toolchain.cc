#include "gate/toolchain.h"

#include <cctype>

namespace paddock::gate {
namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}
bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

bool site_dir(std::string_view name) { return name == "site-packages" || name == "dist-packages"; }

// Lines of TEXT, without their line ends.
template <typename F>
void for_each_line(std::string_view text, F&& f) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    f(line);
    pos = eol + 1;
  }
}

std::string_view without_bom(std::string_view text) {
  return starts_with(text, "\xEF\xBB\xBF") ? text.substr(3) : text;
}

bool import_line(std::string_view line) { return starts_with(line, "import ") || starts_with(line, "import\t"); }

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

}  // namespace

bool customize_name(std::string_view name) {
  for (std::string_view stem : {"sitecustomize", "usercustomize"})
    if (starts_with(name, stem) && (name.size() == stem.size() || name[stem.size()] == '.')) return true;
  return false;
}

bool venv_script_name(std::string_view name) {
  // An interpreter: python, python3, python3.12, python3.13t, pythonw, pypy, pypy3, pypy3.10.
  for (std::string_view stem : {"python", "pypy"}) {
    if (!starts_with(name, stem)) continue;
    std::string_view rest = name.substr(stem.size());
    while (!rest.empty() && (std::isdigit(static_cast<unsigned char>(rest.front())) || rest.front() == '.'))
      rest.remove_prefix(1);
    if (rest.empty() || rest == "t" || rest == "w") return true;
  }
  // An activation script: activate, activate.fish, Activate.ps1, activate_this.py.
  return name.size() >= 8 && std::tolower(static_cast<unsigned char>(name[0])) == 'a' && name.substr(1, 7) == "ctivate";
}

std::optional<std::string> toolchain_name(const std::vector<std::string_view>& parts) {
  if (parts.empty()) return std::nullopt;
  const std::string_view name = parts.back();
  for (std::string_view c : parts)
    if (customize_name(c))
      return std::string("Python imports it at every start of an interpreter that has its directory on its path");
  if (name == "pyvenv.cfg")
    return std::string("names the interpreter a virtual environment's python runs (editors start it on opening the folder)");
  if (ends_with(name, ".pth") && parts.size() >= 2 && site_dir(parts[parts.size() - 2]))
    return std::string("Python runs its import lines at every start of the environment's interpreter (editors start it "
                       "on opening the folder)");
  if (parts.size() >= 2 && parts[parts.size() - 2] == "bin" && venv_script_name(name))
    return std::string("a virtual environment's interpreter or activation script: editors start the one and source "
                       "the other in every new terminal");
  if (parts.size() >= 4 && parts[parts.size() - 2] == "activate.d" && parts[parts.size() - 3] == "conda" &&
      parts[parts.size() - 4] == "etc")
    return std::string("conda sources it when the environment is activated (editors do so in every new terminal)");
  return std::nullopt;
}

bool pth_runs_code(std::string_view text) {
  bool runs = false;
  for_each_line(without_bom(text), [&](std::string_view line) { runs = runs || import_line(line); });
  return runs;
}

std::set<std::string> pth_import_names(std::string_view text) {
  std::set<std::string> names;
  for_each_line(without_bom(text), [&](std::string_view line) {
    if (!import_line(line)) return;
    std::size_t i = 0;
    while (i < line.size()) {
      const unsigned char c = static_cast<unsigned char>(line[i]);
      if (std::isalpha(c) || c == '_') {
        std::size_t j = i;
        while (j < line.size() && (std::isalnum(static_cast<unsigned char>(line[j])) || line[j] == '_')) ++j;
        names.emplace(line.substr(i, j - i));
        i = j;
      } else {
        ++i;
      }
    }
  });
  return names;
}

std::vector<std::string> pyvenv_interpreter_paths(std::string_view text) {
  std::vector<std::string> out;
  for_each_line(text, [&](std::string_view line) {
    const std::size_t eq = line.find('=');
    if (eq == std::string_view::npos) return;
    std::string key(trim(line.substr(0, eq)));
    for (char& ch : key) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (key == "home" || key == "executable" || key == "base-executable" || key == "base-prefix" ||
        key == "base-exec-prefix")
      out.emplace_back(trim(line.substr(eq + 1)));
  });
  return out;
}

}  // namespace paddock::gate
