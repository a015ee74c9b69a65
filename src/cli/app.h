// The paddock command line as one CLI11 tree: the root (its help, --version and -V) and a
// subcommand per command, each registered by its cmd_*.cc. main.cc parses with it; the man pages,
// the completion scripts and the mistake messages read the same tree (app_tree.h).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace paddock::cli {

// Sets up APP as paddock's root. When ONLY names a command, only that one is registered (building
// a command's options is most of what parsing costs, and `paddock run` is on every start-up path);
// otherwise, or when it names none, all of them, so help and errors list every command.
void build_app(CLI::App& app, const std::string& only = {});

}  // namespace paddock::cli
