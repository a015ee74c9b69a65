// paddock: the command-line face of libpaddock. Thin: parse flags, call the library, print.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/app.h"
#include "cli/commands.h"
#include "cli/suggest.h"

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
  CLI::App app;
  paddock::cli::build_app(app, argc > 1 ? argv[1] : "");
  // Everything after the first "--" is the sandboxed command, taken verbatim.
  int parse_argc = argc;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--") == 0) {
      paddock::cli::set_command_after_dashes(std::vector<std::string>(argv + i + 1, argv + argc));
      parse_argc = i;
      break;
    }
  }
  try {
    app.parse(parse_argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    const std::vector<std::string> args(argv + 1, argv + parse_argc);
    const auto d = paddock::cli::explain_parse_error(app, args, e);
    std::fprintf(stderr, "%s: %s\n", d.command.c_str(), d.message.c_str());
    std::fprintf(stderr, "%s: hint: %s --help lists what it takes\n", d.command.c_str(), d.command.c_str());
    return 2;
  }
  return paddock::cli::exit_code();
}
