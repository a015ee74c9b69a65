// What a mistyped command line gets instead of CLI11's bare complaint: the command it reached, what
// was wrong, and the nearest word (`paddock runn` -> `unknown command "runn" (did you mean
// "run"?)`). The nearest word comes from policy/did_you_mean.h, as for profile keys.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace paddock::cli {

struct Diagnosis {
  const CLI::App* at = nullptr;  // the deepest command the arguments reached
  std::string command;  // its path, "paddock jail create"
  std::string message;  // "unknown option \"--alow\" (did you mean \"--allow\"?)"; "" when none found
};

// Walks ARGS (the command line without argv[0], before any "--") down APP's tree as the parser
// does and names the first unknown command or option, with the nearest one. Hidden commands
// (group "") are neither matched nor suggested.
Diagnosis diagnose(const CLI::App& app, const std::vector<std::string>& args);

// The message for a parse error: diagnose()'s when it found something, else CLI11's own text
// under the command reached. Never prefixed twice.
Diagnosis explain_parse_error(const CLI::App& app, const std::vector<std::string>& args, const CLI::ParseError& e);

}  // namespace paddock::cli
