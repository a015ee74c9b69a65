// The man pages, made from the CLI11 tree that parses the command line (so OPTIONS cannot drift
// from --help) and the prose in docs/man/PAGE.md (DESCRIPTION, EXAMPLES, EXIT STATUS, ...):
//
//   paddock(1)          the commands, the root options, docs/man/paddock.1.md
//   paddock-CMD(1)      one per visible command: synopsis, options, its subcommands with theirs,
//                       docs/man/paddock-CMD.1.md
//   paddock-profile(5)  docs/profiles.md (the profile format's one description), less its
//                       "Library" section
//
// `paddock __man` writes them at build time (cmake: target paddock_man).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "paddock/result.h"

namespace paddock::cli {

struct ManPage {
  std::string name;  // "paddock-run"
  int section = 1;
  std::string roff;
  std::string file() const { return name + "." + std::to_string(section); }
};

// PROSE maps "paddock-run.1" to its Markdown. An error names a command without prose, prose
// without a command, and an option the prose mentions that no command has.
Result<std::vector<ManPage>> command_pages(const CLI::App& app, const std::map<std::string, std::string>& prose,
                                           const std::string& version);

ManPage profile_page(const std::string& profiles_md, const std::string& version);

}  // namespace paddock::cli
