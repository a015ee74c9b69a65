// paddock version: what `paddock --version` prints (version.h).
#include <cstdio>

#include "cli/commands.h"
#include "cli/version.h"

namespace paddock::cli {

void register_version(CLI::App& app) {
  auto* cmd = app.add_subcommand("version", "Print the version (release, commit, build type)");
  cmd->callback([] {
    std::printf("%s\n", version_text().c_str());
    set_exit_code(0);
  });
}

}  // namespace paddock::cli
