#include "cli/app.h"

#include "cli/commands.h"
#include "cli/version.h"

namespace paddock::cli {
namespace {

struct Command {
  const char* name;
  void (*add)(CLI::App&);
};
constexpr Command kCommands[] = {
    {"run", register_run},
    {"why", register_why},
    {"doctor", register_doctor},
    {"mcp", register_mcp},
    {"integrate", register_integrate},
    {"host", register_host},
    {"jail", register_jail},
    {"undo", register_undo},
    {"checkpoint", register_checkpoint},
    {"completion", register_completion},
    {"version", register_version},
    // Hidden (group ""): for the completion scripts and the build.
    {"__complete", register_complete_values},
    {"__man", register_man},
};

}  // namespace

void build_app(CLI::App& app, const std::string& only) {
  app.description("a sandbox for AI coding agents");
  app.name("paddock");
  app.set_version_flag("-V,--version", version_text(), "Print the version (release, commit, build type) and exit");
  app.require_subcommand(1);
  for (const Command& c : kCommands) {
    if (only == c.name) {
      c.add(app);
      return;
    }
  }
  for (const Command& c : kCommands) c.add(app);
}

}  // namespace paddock::cli
