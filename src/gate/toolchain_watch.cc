// The after-run walk's toolchain rules (toolchain.h says what runs and why).
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>

#include "gate/toolchain.h"
#include "gate/walker.h"
#include "policy/path_util.h"

namespace paddock::gate {
namespace {

constexpr const char* kPythonUser = "you (or your editor) start the environment's python";
constexpr const char* kCustomizeWhy = "Python imports it at every start of an interpreter that has its directory on its path";
constexpr const char* kPthWhy =
    "Python executes a .pth file's import lines at every start of the environment's interpreter (editors start it on "
    "opening the folder)";
constexpr const char* kPthModuleWhy =
    "imported by an import line of a .pth file at every start of the environment's interpreter";
constexpr const char* kPyvenvWhy =
    "its home names where the environment's python loads its standard library from: a place the run could write";
constexpr const char* kInterpreterWhy =
    "the environment's interpreter, which editors start on opening the folder: not a link to an interpreter outside "
    "the writable areas";
constexpr const char* kActivateWhy = "editors source a virtual environment's activation scripts in every new terminal";
constexpr const char* kCondaWhy = "conda sources these when the environment is activated (editors do in every new terminal)";
constexpr std::size_t kMaxPth = 1u << 20;

std::optional<std::string> read_small(int dir, const char* name, std::size_t max) {
  int f = openat(dir, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (f < 0) return std::nullopt;
  sys::UniqueFd file(f);
  struct stat st;
  if (fstat(f, &st) != 0 || !S_ISREG(st.st_mode) || static_cast<std::size_t>(st.st_size) > max) return std::nullopt;
  std::string out(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t got = 0;
  while (got < out.size()) {
    ssize_t n = read(f, out.data() + got, out.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  out.resize(got);
  return out;
}

// A module's name as Python looks it up: an entry's name up to its first dot.
std::string_view stem(std::string_view name) { return name.substr(0, name.find('.')); }

}  // namespace

// `sitecustomize`/`usercustomize` at any depth (Python imports it from any directory on its path,
// and a .pth line adds directories to the path).
void Walker::toolchain_entry(int fd, const std::string& path, const std::string& name) {
  struct stat st;
  if (!stat_at(fd, name.c_str(), st)) return;
  const std::string p = path + "/" + name;
  if (S_ISDIR(st.st_mode)) {
    sys::UniqueFd d(open_dir(fd, name.c_str()));
    if (d) changed_below(d.get(), p, kCustomizeWhy, 16);
  } else if (changed(st)) {
    flag(fd, name.c_str(), p, kCustomizeWhy, kPythonUser);
  }
}

// A site-packages directory (ENTRIES: its listing): its .pth files, and the modules the .pth
// files that were there before the run import.
void Walker::site_packages(int fd, const std::string& path, const std::vector<Listed>& entries) {
  if (record_ != nullptr) return;
  std::set<std::string> imported;
  for (const Listed& e : entries) {
    if (e.name.size() < 4 || e.name.compare(e.name.size() - 4, 4, ".pth") != 0) continue;
    struct stat st, target;
    if (!stat_at(fd, e.name.c_str(), st)) continue;
    // A link is judged by what it leads to as well: its content is what Python reads.
    const bool link_changed = S_ISLNK(st.st_mode) && fstatat(fd, e.name.c_str(), &target, 0) == 0 && changed(target);
    auto text = read_small(fd, e.name.c_str(), kMaxPth);
    if (changed(st) || link_changed) {
      if (!text || S_ISLNK(st.st_mode) || pth_runs_code(*text)) flag(fd, e.name.c_str(), path + "/" + e.name, kPthWhy, kPythonUser);
      continue;
    }
    if (text) {
      auto names = pth_import_names(*text);
      imported.insert(names.begin(), names.end());
    }
  }
  if (imported.empty()) return;
  for (const Listed& e : entries) {
    if (!imported.count(std::string(stem(e.name)))) continue;
    struct stat st;
    if (!stat_at(fd, e.name.c_str(), st)) continue;
    const std::string p = path + "/" + e.name;
    if (S_ISDIR(st.st_mode)) {
      sys::UniqueFd d(open_dir(fd, e.name.c_str()));
      if (d) changed_below(d.get(), p, kPthModuleWhy, 16);
    } else if (changed(st)) {
      flag(fd, e.name.c_str(), p, kPthModuleWhy, kPythonUser);
    }
  }
  // Their compiled forms: Python loads __pycache__/NAME.TAG.pyc when its header matches the source.
  sys::UniqueFd cache(open_dir(fd, "__pycache__"));
  if (!cache) return;
  std::vector<std::string> pyc;
  for_each_entry(cache.get(), [&](const char* name, unsigned char) {
    if (imported.count(std::string(stem(name)))) pyc.emplace_back(name);
  });
  for (const std::string& name : pyc) {
    struct stat st;
    if (stat_at(cache.get(), name.c_str(), st) && changed(st))
      flag(cache.get(), name.c_str(), path + "/__pycache__/" + name, kPthModuleWhy, kPythonUser);
  }
}

// A Python environment's directory (it holds pyvenv.cfg, or conda-meta/): its configuration, its
// interpreters and its activation scripts.
void Walker::python_env(int fd, const std::string& path) {
  if (record_ != nullptr) return;
  auto outside_areas = [&](const std::string& p) {
    if (p.empty() || p.front() != '/') return false;
    // Where it really leads (a link followed as the interpreter's start would), or as written.
    char* real = realpath(p.c_str(), nullptr);
    const std::string r = real ? real : path::normalize(p);
    free(real);
    return std::none_of(roots_.begin(), roots_.end(), [&](const std::string& root) { return path::is_at_or_under(r, root); }) &&
           !(area_ && path::is_at_or_under(r, area_->shown));
  };
  struct stat st;
  if (stat_at(fd, "pyvenv.cfg", st) && changed(st)) {
    auto text = read_small(fd, "pyvenv.cfg", kMaxPth);
    bool ok = text.has_value() && !S_ISLNK(st.st_mode);
    if (ok)
      for (const std::string& p : pyvenv_interpreter_paths(*text)) ok = ok && outside_areas(p);
    if (!ok) flag(fd, "pyvenv.cfg", path + "/pyvenv.cfg", kPyvenvWhy, kPythonUser);
  }
  if (stat_at(fd, "bin", st)) {
    if (!S_ISDIR(st.st_mode)) {
      if (changed(st)) flag(fd, "bin", path + "/bin", kInterpreterWhy, kPythonUser);
    } else if (sys::UniqueFd bin{open_dir(fd, "bin")}) {
      std::vector<std::string> scripts;
      for_each_entry(bin.get(), [&](const char* name, unsigned char) {
        if (venv_script_name(name)) scripts.emplace_back(name);
      });
      std::sort(scripts.begin(), scripts.end());
      for (const std::string& name : scripts) {
        struct stat s;
        if (!stat_at(bin.get(), name.c_str(), s) || !changed(s)) continue;
        const std::string p = path + "/bin/" + name;
        if (name.compare(0, 6, "python") == 0 || name.compare(0, 4, "pypy") == 0) {
          // A link to an interpreter the run could not write (how venv and uv make it) is fine.
          if (S_ISLNK(s.st_mode) && outside_areas(host_path(p))) continue;
          flag(bin.get(), name.c_str(), p, kInterpreterWhy, kPythonUser);
        } else {
          flag(bin.get(), name.c_str(), p, kActivateWhy, kPythonUser);
        }
      }
    }
  }
  // conda: etc/conda/activate.d/*.
  sys::UniqueFd etc(open_dir(fd, "etc"));
  sys::UniqueFd conda(etc ? open_dir(etc.get(), "conda") : -1);
  sys::UniqueFd activate(conda ? open_dir(conda.get(), "activate.d") : -1);
  if (activate) changed_below(activate.get(), path + "/etc/conda/activate.d", kCondaWhy, 4);
}

}  // namespace paddock::gate
