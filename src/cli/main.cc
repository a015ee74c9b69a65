// paddock: the command-line face of libpaddock. Thin: parse flags, call the library, print.
#include <cstdio>
#include <cstring>
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

namespace {

struct Command {
  const char* name;
  void (*add)(CLI::App&);
};
constexpr Command kCommands[] = {
    {"run", paddock::cli::register_run},
    {"why", paddock::cli::register_why},
    {"doctor", paddock::cli::register_doctor},
    {"mcp", paddock::cli::register_mcp},
    {"integrate", paddock::cli::register_integrate},
    {"host", paddock::cli::register_host},
    {"jail", paddock::cli::register_jail},
    {"undo", paddock::cli::register_undo},
    {"checkpoint", paddock::cli::register_checkpoint},
};

// Building a command's options is most of what parsing costs (`paddock run` is on every
// start-up path), so when the first argument names a command only that one is registered.
// Anything else (no argument, --help, --version, a typo) registers them all, so help and
// errors list every command exactly as before.
void register_commands(CLI::App& app, int argc, char** argv) {
  if (argc > 1) {
    for (const Command& c : kCommands) {
      if (std::strcmp(argv[1], c.name) == 0) {
        c.add(app);
        return;
      }
    }
  }
  for (const Command& c : kCommands) c.add(app);
}

}  // namespace

int main(int argc, char** argv) {
  // `paddock run -- COMMAND...`, the way agents are launched, leaves nothing for a parser to do.
  if (argc > 3 && std::strcmp(argv[1], "run") == 0 && std::strcmp(argv[2], "--") == 0) {
    return paddock::cli::run_with_default_flags(std::vector<std::string>(argv + 3, argv + argc));
  }
  // The wrapper and the runner take a fixed argv and no options: nothing for a parser to reinterpret.
  // sudo matches the runner's rule against its arguments joined by spaces, so "host runner ..." may
  // also arrive as one argument: refused there, by the same fixed-form check.
  if ((argc > 2 && std::strcmp(argv[1], "host") == 0 &&
       (std::strcmp(argv[2], "wrap") == 0 || std::strcmp(argv[2], "runner") == 0)) ||
      (argc > 1 && std::strncmp(argv[1], "host ", 5) == 0)) {
    return paddock::cli::host_fixed_main(argc, argv);
  }
  CLI::App app{"paddock: a sandbox for AI coding agents", "paddock"};
  app.set_version_flag("--version", "paddock " PADDOCK_VERSION);
  app.require_subcommand(1);
  register_commands(app, argc, argv);
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
