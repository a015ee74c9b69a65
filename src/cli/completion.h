// Shell completion scripts made from the CLI11 tree that parses the command line: commands,
// options, the values an option takes (arg_values.h: choices, paths, commands), and the names only
// known at the time of completing — profiles, jails, undo sessions — which the script asks the
// paddock it completes for (`paddock __complete KIND`, value_sources.h).
//
// Names that come from files are never evaluated by the shell: bash gets them through `read`, not
// `compgen -W` (which would expand `$(...)` in a profile's file name), zsh through `compadd`, fish
// as command output.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace paddock::cli {

enum class Shell { Bash, Zsh, Fish };

std::string completion_script(const CLI::App& app, Shell shell, const std::string& version);

}  // namespace paddock::cli
