#include "cli/suggest.h"

#include "cli/app_tree.h"
#include "policy/did_you_mean.h"

namespace paddock::cli {
namespace {

std::string with_hint(std::string message, const std::string& hint) {
  return hint.empty() ? message : message + " (" + hint + ")";
}

std::vector<std::string> long_names(const CLI::App& app) {
  std::vector<std::string> out;
  for (const CLI::Option* o : named_options(app))
    for (const auto& l : o->get_lnames()) out.push_back("--" + l);
  return out;
}

std::vector<std::string> command_names(const CLI::App& app) {
  std::vector<std::string> out;
  for (const CLI::App* s : visible_subcommands(app)) out.push_back(s->get_name());
  return out;
}

// CLI11 words its errors for the whole command line ("--workspace: ..."); the command they
// belong to is said once, in front, by the caller.
std::string strip_cli11_noise(std::string what) {
  for (const char* tail : {"\nRun with --help for more information.", "\n"}) {
    const std::string t = tail;
    if (what.size() >= t.size() && what.compare(what.size() - t.size(), t.size(), t) == 0)
      what.erase(what.size() - t.size());
  }
  return what;
}

}  // namespace

Diagnosis diagnose(const CLI::App& app, const std::vector<std::string>& args) {
  const CLI::App* cur = &app;
  std::size_t npos = 0;  // positionals given to `cur` so far
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.size() > 1 && a[0] == '-') {
      const bool is_long = a.rfind("--", 0) == 0;
      const std::string name = is_long ? a.substr(0, a.find('=')) : a.substr(0, 2);
      const CLI::Option* o = find_option(*cur, name);
      if (o == nullptr) {
        const std::string hint = is_long ? did_you_mean(name, long_names(*cur)) : std::string();
        return {cur, command_path(*cur), with_hint("unknown option \"" + name + "\"", hint)};
      }
      // A value in the next argument (not for "--x=v", nor "-xv").
      const bool inline_value = is_long ? a.find('=') != std::string::npos : a.size() > 2;
      if (takes_value(o) && !inline_value) ++i;
      continue;
    }
    if (const CLI::App* sub = find_subcommand(*cur, a)) {
      cur = sub;
      npos = 0;
      continue;
    }
    // Not a command: a positional, when `cur` takes one here.
    const auto pos = positionals(*cur);
    bool takes = false;
    for (std::size_t k = 0, seen = 0; k < pos.size(); ++k) {
      const int max = pos[k]->get_items_expected_max();
      if (max >= CLI::detail::expected_max_vector_size || npos < seen + static_cast<std::size_t>(max)) {
        takes = true;
        break;
      }
      seen += static_cast<std::size_t>(max);
    }
    if (takes) {
      ++npos;
      continue;
    }
    const auto names = command_names(*cur);
    if (names.empty()) {
      return {cur, command_path(*cur), "unexpected argument \"" + a + "\""};
    }
    return {cur, command_path(*cur), with_hint("unknown command \"" + a + "\"", did_you_mean(a, names))};
  }
  return {cur, command_path(*cur), ""};
}

Diagnosis explain_parse_error(const CLI::App& app, const std::vector<std::string>& args, const CLI::ParseError& e) {
  Diagnosis d = diagnose(app, args);
  if (!d.message.empty()) return d;
  std::string what = strip_cli11_noise(e.what());
  // "A subcommand is required" from CLI11 names neither the command nor the choices.
  if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr && what.find("subcommand") != std::string::npos) {
    std::string names;
    for (const auto& n : command_names(*d.at)) names += (names.empty() ? "" : ", ") + n;
    what = "a command is required: " + names;
  }
  d.message = what;
  return d;
}

}  // namespace paddock::cli
