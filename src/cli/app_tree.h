// Reading the CLI11 tree that main.cc builds: the commands a user can name, their options and
// positionals, in the order they were added. Shared by the mistake messages (suggest.h), the man
// pages (man_page.h) and the completion scripts (completion.h), so all three see one definition.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace paddock::cli {

// The subcommands a user can name (hidden ones, group "", left out).
std::vector<const CLI::App*> visible_subcommands(const CLI::App& app);
const CLI::App* find_subcommand(const CLI::App& app, const std::string& name);

// APP's options that take a name (--x, -x), help included; and its positionals.
std::vector<const CLI::Option*> named_options(const CLI::App& app);
std::vector<const CLI::Option*> positionals(const CLI::App& app);

// The option of APP named NAME ("--allow", "-y"), or null.
const CLI::Option* find_option(const CLI::App& app, const std::string& name);
// Whether OPT takes a value (an option or a positional), rather than being a flag.
bool takes_value(const CLI::Option* opt);

// Every name of OPT: "--yes", "-y".
std::vector<std::string> option_names(const CLI::Option* opt);

// "paddock jail create" for the subcommand APP; "paddock" for the root.
std::string command_path(const CLI::App& app);

// APP and every visible command below it, depth first, APP first.
std::vector<const CLI::App*> all_commands(const CLI::App& app);

}  // namespace paddock::cli
