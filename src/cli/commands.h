// One file per command; each registers its subcommand on the app. main.cc wires them together.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

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

// `paddock run -- COMMAND...` with no flags: runs `command` under the default flags without
// building a parser (nothing to parse). Returns the exit code.
int run_with_default_flags(std::vector<std::string> command);

void set_exit_code(int code);
int exit_code();
// The arguments after the first "--" on the command line (the sandboxed command), if any.
const std::vector<std::string>* command_after_dashes();

}  // namespace paddock::cli
