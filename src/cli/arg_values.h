// What an option's (or a positional's) value is: a path, a jail name, one of a few words. Kept on
// the option itself, so everything that walks the CLI11 tree — completion scripts, man pages, the
// "did you mean" of a bad value — reads the same definition as the parser.
//
//   values(cmd->add_option("--report", f.report, "..."), ValueKind::File, "FILE");
//   one_of(cmd->add_option("--workspace", f.ws, "How the workspace is made"), {"host", "copy", ...});
//
// one_of() checks the value while parsing: an unknown word is an error naming the choices and the
// nearest one ("did you mean \"overlay\"?"); an alias (`bwrap` for `bubblewrap`) becomes its word.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

namespace paddock::cli {

enum class ValueKind {
  None,     // a flag: no value
  Text,     // free text: nothing to complete
  Path,     // any path
  File,     // a file
  Dir,      // a directory
  Command,  // a program (then its arguments)
  Profile,  // a profile name (built-in or user) or a profile file
  Jail,     // a jail's name
  Session,  // an undo session, SESSION[:SNAPSHOT]
  Choice,   // one of a fixed list of words
};

struct Alias {
  std::string alias, word;  // `bwrap` -> `bubblewrap`
};

struct ValueSpec {
  ValueKind kind = ValueKind::None;
  std::vector<std::string> choices;  // ValueKind::Choice
  std::vector<Alias> aliases;        // accepted too, never offered
};

// Marks OPT's value as KIND and sets its placeholder (PLACEHOLDER, e.g. "PATH", "JAIL").
CLI::Option* values(CLI::Option* opt, ValueKind kind, const std::string& placeholder);

// OPT takes one of CHOICES (an alias is rewritten to its word before anything sees it). The
// placeholder is the choices joined by '|', and the help text gets "(default X)" from the
// option's initial value when it has one.
CLI::Option* one_of(CLI::Option* opt, std::vector<std::string> choices, std::vector<Alias> aliases = {});

// What OPT takes: None for a flag, Text when nothing more was said.
ValueSpec value_spec(const CLI::Option* opt);

// The message for VALUE when it is not one of SPEC's choices (empty when it is).
std::string check_choice(const ValueSpec& spec, const std::string& value);

// The placeholders an option may show: each value option names its value with one of these (or,
// for one_of, its choices), so help, man pages and completions read alike.
const std::vector<std::string>& known_placeholders();

}  // namespace paddock::cli
