// One file per command; each registers its subcommand on the app. app.cc wires them together.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "paddock/result.h"

namespace paddock::cli {

// Each register_* adds a subcommand whose callback sets the process exit code through
// set_exit_code().
void register_run(CLI::App& app);
void register_why(CLI::App& app);
void register_doctor(CLI::App& app);
void register_mcp(CLI::App& app);
void register_integrate(CLI::App& app);
void register_host(CLI::App& app);
// `paddock host wrap ...` and `paddock host runner ...`: fixed argv, no parser (cmd_host.cc).
int host_fixed_main(int argc, char** argv);
void register_jail(CLI::App& app);
void register_undo(CLI::App& app);
void register_checkpoint(CLI::App& app);
void register_completion(CLI::App& app);
void register_version(CLI::App& app);
// Hidden: `paddock __complete KIND` (names for the completion scripts), `paddock __man` (the build).
void register_complete_values(CLI::App& app);
void register_man(CLI::App& app);

// `paddock run -- COMMAND...` with no flags: runs `command` under the default flags without
// building a parser (nothing to parse). Returns the exit code.
int run_with_default_flags(std::vector<std::string> command);

void set_exit_code(int code);
int exit_code();
// The arguments after the first "--" on the command line (the sandboxed command), if any.
const std::vector<std::string>* command_after_dashes();
void set_command_after_dashes(std::vector<std::string> args);

// "paddock why: <error>" and its hint on stderr, for the command WHO ("paddock why"). The error's
// own `where` is kept unless it only repeats WHO.
void print_command_error(const std::string& who, const Error& e);

}  // namespace paddock::cli
