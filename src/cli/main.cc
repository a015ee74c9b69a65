// paddock: the command-line face of libpaddock. Thin: parse flags, call the library, print.
#include <cstdio>

#include <CLI/CLI.hpp>

#include "cli/commands.h"

namespace paddock::cli {
namespace {
int g_exit_code = 0;
}
void set_exit_code(int code) { g_exit_code = code; }
int exit_code() { return g_exit_code; }
}  // namespace paddock::cli

int main(int argc, char** argv) {
  CLI::App app{"paddock: a sandbox for AI coding agents", "paddock"};
  app.set_version_flag("--version", "paddock " PADDOCK_VERSION);
  app.require_subcommand(1);
  paddock::cli::register_run(app);
  paddock::cli::register_why(app);
  paddock::cli::register_doctor(app);
  paddock::cli::register_mcp(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  return paddock::cli::exit_code();
}
