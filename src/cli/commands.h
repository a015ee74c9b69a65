// One file per command; each registers its subcommand on the app. main.cc wires them together.
#pragma once

#include <CLI/CLI.hpp>

namespace paddock::cli {

// Each register_* adds a subcommand whose callback sets the process exit code through
// set_exit_code().
void register_run(CLI::App& app);
void register_why(CLI::App& app);
void register_doctor(CLI::App& app);
void register_mcp(CLI::App& app);

void set_exit_code(int code);
int exit_code();

}  // namespace paddock::cli
