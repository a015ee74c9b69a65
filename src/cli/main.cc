// paddock: the command-line face of libpaddock. Thin: parse flags, call the library, print.
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/commands.h"

namespace paddock::cli {
namespace {
int g_exit_code = 0;
}  // namespace
std::vector<std::string> g_after_dashes;
bool g_have_dashes = false;
void set_exit_code(int code) { g_exit_code = code; }
int exit_code() { return g_exit_code; }
const std::vector<std::string>* command_after_dashes() { return g_have_dashes ? &g_after_dashes : nullptr; }
}  // namespace paddock::cli

int main(int argc, char** argv) {
  CLI::App app{"paddock: a sandbox for AI coding agents", "paddock"};
  app.set_version_flag("--version", "paddock " PADDOCK_VERSION);
  app.require_subcommand(1);
  paddock::cli::register_run(app);
  paddock::cli::register_why(app);
  paddock::cli::register_doctor(app);
  paddock::cli::register_mcp(app);
  // Everything after the first "--" is the sandboxed command, taken verbatim.
  int parse_argc = argc;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--") {
      paddock::cli::g_have_dashes = true;
      for (int j = i + 1; j < argc; ++j) paddock::cli::g_after_dashes.emplace_back(argv[j]);
      parse_argc = i;
      break;
    }
  }
  try {
    app.parse(parse_argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  return paddock::cli::exit_code();
}
