#include "jail/sealed_git.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "jail/object_files.h"
#include "sys/anchored_dir.h"
#include "sys/unique_fd.h"

namespace paddock::jail {
namespace {

// Everything git would otherwise take from a configuration, set to what runs nothing. Only
// this file is read: no system or global config (the environment below), and nothing of a
// repository the run wrote.
std::string config_text(std::string_view object_format) {
  std::string c = "[core]\n";
  c += object_format == "sha256" ? "\trepositoryformatversion = 1\n" : "\trepositoryformatversion = 0\n";
  c += "\tbare = false\n"
       "\thooksPath = /dev/null\n"
       "\tfsmonitor = false\n"
       "\tattributesFile = /dev/null\n"
       "\texcludesFile = /dev/null\n"
       "\tpager = cat\n"
       "\teditor = false\n"
       "\taskPass = false\n"
       "\tsshCommand = false\n"
       "\tuntrackedCache = false\n"
       "\tsplitIndex = false\n"
       "\tcommitGraph = false\n"
       "\tmultiPackIndex = false\n"
       "\tautocrlf = false\n"
       "\tsafecrlf = false\n"
       "\tsymlinks = true\n"
       "\tfilemode = true\n"
       "\tquotePath = false\n"
       "\tlogAllRefUpdates = false\n";
  if (object_format == "sha256") c += "[extensions]\n\tobjectFormat = sha256\n";
  c += "[gc]\n\tauto = 0\n"
       "[maintenance]\n\tauto = false\n"
       "[commit]\n\tgpgSign = false\n"
       "[tag]\n\tgpgSign = false\n"
       "[diff]\n\trenames = false\n\tnoprefix = false\n\tmnemonicPrefix = false\n"
       "[protocol]\n\tallow = never\n"
       "[pack]\n\tuseBitmaps = false\n"
       "[index]\n\tskipHash = false\n"
       "[feature]\n\tmanyFiles = false\n";
  return c;
}

// Highest precedence of all attribute sources ($GIT_DIR/info/attributes): every attribute that
// selects a driver (filter, diff, merge) or converts content on its way into git (text, eol,
// crlf, ident, working-tree-encoding) is unspecified for every path, whatever a .gitattributes
// in the work tree says. (`binary` is a macro of -diff -merge -text: unset by the same line.)
constexpr const char* kAttributes =
    "* !filter !diff !merge !text !eol !crlf !ident !working-tree-encoding\n";

Result<void> make_dir_at(int parent, const char* name, const std::string& where) {
  if (mkdirat(parent, name, 0700) != 0 && errno != EEXIST) return errno_error("cannot create", errno, where);
  return {};
}

}  // namespace

bool is_object_name(std::string_view name) {
  if (name.size() != 40 && name.size() != 64) return false;
  for (char c : name)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

Result<SealedGit> SealedGit::open(const std::string& dir, const std::vector<std::string>& alternates,
                                  std::string_view object_format) {
  if (object_format != "sha1" && object_format != "sha256")
    return make_error("unknown git object format \"" + std::string(object_format) + "\"", dir);
  auto d = private_dir(dir);
  if (!d) return std::move(d).take_error();
  for (const char* sub : {"objects", "objects/info", "objects/pack", "refs", "refs/heads", "info"})
    if (auto m = make_dir_at(d->get(), sub, dir + "/" + sub); !m) return std::move(m).take_error();
  std::string alt;
  for (const std::string& a : alternates) {
    if (a.empty() || a[0] != '/' || a.find('\n') != std::string::npos || a[0] == '"')
      return make_error("an object directory paddock cannot name as an alternate", a);
    alt += a + "\n";
  }
  auto info = sys::open_dir_no_symlinks(dir + "/objects/info");
  if (!info) return std::move(info).take_error();
  auto git_info = sys::open_dir_no_symlinks(dir + "/info");
  if (!git_info) return std::move(git_info).take_error();
  if (auto w = keep_file(d->get(), "HEAD", "ref: refs/heads/paddock\n", 0600); !w) return std::move(w).take_error();
  if (auto w = keep_file(d->get(), "config", config_text(object_format), 0600); !w) return std::move(w).take_error();
  if (auto w = keep_file(git_info->get(), "attributes", kAttributes, 0600); !w) return std::move(w).take_error();
  if (auto w = keep_file(info->get(), "alternates", alt, 0600); !w) return std::move(w).take_error();
  return SealedGit(dir);
}

Result<ProcessResult> SealedGit::run(const std::vector<std::string>& args, const GitCall& call) const {
  // The whole environment: nothing inherited names another git directory, config, pager,
  // editor, askpass, ssh command or external diff.
  const char* path = std::getenv("PATH");
  std::vector<std::string> env = {
      std::string("PATH=") + (path && *path ? path : "/usr/bin:/bin"),
      "HOME=" + dir_,
      "XDG_CONFIG_HOME=" + dir_,
      "GIT_DIR=" + dir_,
      "GIT_CONFIG_NOSYSTEM=1",
      "GIT_CONFIG_SYSTEM=/dev/null",
      "GIT_CONFIG_GLOBAL=/dev/null",
      "GIT_ATTR_NOSYSTEM=1",
      "GIT_NO_REPLACE_OBJECTS=1",
      "GIT_TERMINAL_PROMPT=0",
      "GIT_OPTIONAL_LOCKS=0",
      "GIT_PAGER=cat",
      "PAGER=cat",
      "LC_ALL=C",
  };
  if (!call.work_tree.empty()) env.push_back("GIT_WORK_TREE=" + call.work_tree);
  if (!call.index.empty()) env.push_back("GIT_INDEX_FILE=" + call.index);
  if (!call.objects.empty()) env.push_back("GIT_OBJECT_DIRECTORY=" + call.objects);
  env.insert(env.end(), call.env.begin(), call.env.end());
  std::vector<std::string> argv = {"git"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, call.work_tree.empty() ? dir_ : call.work_tree, env, /*replace_env=*/true, call.input);
}

Result<std::string> SealedGit::ok(const std::vector<std::string>& args, const GitCall& call) const {
  return git_output(run(args, call), args, dir_);
}

Result<std::vector<std::string>> objects_missing(const SealedGit& git, const std::string& objects,
                                                 const std::vector<std::string>& names) {
  std::vector<std::string> missing;
  if (names.empty()) return missing;
  std::string input;
  for (const auto& n : names) input += n + "\n";
  // "<name> missing" for each one it does not have.
  auto out = git.ok({"cat-file", "--batch-check=%(objectname)"}, {.objects = objects, .input = &input});
  if (!out) return std::move(out).take_error();
  const std::string suffix = " missing";
  for (const std::string& line : lines_of(*out))
    if (line.size() > suffix.size() && line.compare(line.size() - suffix.size(), suffix.size(), suffix) == 0)
      missing.push_back(line.substr(0, line.size() - suffix.size()));
  return missing;
}

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < s.size()) {
    std::size_t nl = s.find('\n', pos);
    std::string line = s.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? s.size() : nl + 1;
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

Result<std::string> object_format_of(const std::string& git_dir) {
  auto out = git_ok({"--git-dir=" + git_dir, "rev-parse", "--show-object-format"}, "/");
  if (!out) return std::move(out).take_error();
  std::string f = *out;
  while (!f.empty() && (f.back() == '\n' || f.back() == '\r')) f.pop_back();
  if (f != "sha1" && f != "sha256") return make_error("unknown git object format \"" + f + "\"", git_dir);
  return f;
}

}  // namespace paddock::jail
