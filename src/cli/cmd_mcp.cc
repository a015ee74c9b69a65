// Placeholder until `paddock mcp` lands (issue 5).
#include <cstdio>

#include "cli/commands.h"

namespace paddock::cli {

void register_mcp(CLI::App& app) {
  auto* cmd = app.add_subcommand("mcp", "MCP server whose execute tool runs code in sandboxes");
  cmd->callback([] {
    std::fprintf(stderr, "paddock mcp: not available in this build yet\n");
    set_exit_code(2);
  });
}

}  // namespace paddock::cli
