// paddock __man --prose DIR --profiles FILE --out DIR (hidden): writes the man pages
// (man_page.h) at build time. Each file is written whole through a temporary name and a rename.
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include <dirent.h>
#include <fcntl.h>

#include "cli/app.h"
#include "cli/arg_values.h"
#include "cli/commands.h"
#include "cli/man_page.h"
#include "cli/version.h"
#include "sys/anchored_dir.h"

namespace paddock::cli {
namespace {

struct ManFlags {
  std::string prose, profiles, out;
};

Result<std::string> read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) return errno_error("cannot read", errno, path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int do_man(const ManFlags& f) {
  const std::string who = "paddock __man";
  std::map<std::string, std::string> prose;
  std::unique_ptr<DIR, int (*)(DIR*)> d(::opendir(f.prose.c_str()), ::closedir);
  if (!d) return print_command_error(who, errno_error("cannot open", errno, f.prose)), 1;
  while (const dirent* e = ::readdir(d.get())) {
    std::string n = e->d_name;
    if (n.size() <= 3 || n.compare(n.size() - 3, 3, ".md") != 0 || n == "README.md") continue;
    auto text = read_text(f.prose + "/" + n);
    if (!text) return print_command_error(who, text.error()), 1;
    prose[n.substr(0, n.size() - 3)] = *text;
  }
  CLI::App full;
  build_app(full);
  auto pages = command_pages(full, prose, version_text());
  if (!pages) return print_command_error(who, pages.error()), 1;
  auto profiles = read_text(f.profiles);
  if (!profiles) return print_command_error(who, profiles.error()), 1;
  pages->push_back(profile_page(*profiles, version_text()));
  // The build's own output directory: symlinks on its path are the developer's business.
  sys::UniqueFd dir(::open(f.out.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir) return print_command_error(who, errno_error("cannot open", errno, f.out)), 1;
  for (const ManPage& p : *pages) {
    if (auto w = sys::write_file_at(dir.get(), p.file(), p.roff, 0644); !w) return print_command_error(who, w.error()), 1;
  }
  return 0;
}

}  // namespace

void register_man(CLI::App& app) {
  auto f = std::make_shared<ManFlags>();
  auto* cmd = app.add_subcommand("__man", "Write the man pages (at build time)");
  cmd->group("");  // hidden
  values(cmd->add_option("--prose", f->prose, "The pages' prose (docs/man)")->required(), ValueKind::Dir, "DIR");
  values(cmd->add_option("--profiles", f->profiles, "The profile format (docs/profiles.md)")->required(), ValueKind::File,
         "FILE");
  values(cmd->add_option("--out", f->out, "Where the pages go")->required(), ValueKind::Dir, "DIR");
  cmd->callback([f] { set_exit_code(do_man(*f)); });
}

}  // namespace paddock::cli
