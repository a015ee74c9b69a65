#include "cli/app_tree.h"

namespace paddock::cli {

std::vector<const CLI::App*> visible_subcommands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty() && !s->get_name().empty(); });
}

const CLI::App* find_subcommand(const CLI::App& app, const std::string& name) {
  for (const CLI::App* s : visible_subcommands(app))
    if (s->check_name(name)) return s;
  return nullptr;
}

std::vector<const CLI::Option*> named_options(const CLI::App& app) {
  return app.get_options([](const CLI::Option* o) { return o->nonpositional(); });
}

std::vector<const CLI::Option*> positionals(const CLI::App& app) {
  return app.get_options([](const CLI::Option* o) { return !o->nonpositional(); });
}

bool takes_value(const CLI::Option* opt) { return opt->get_items_expected_max() > 0; }

std::vector<std::string> option_names(const CLI::Option* opt) {
  std::vector<std::string> out;
  for (const auto& l : opt->get_lnames()) out.push_back("--" + l);
  for (const auto& s : opt->get_snames()) out.push_back("-" + s);
  return out;
}

const CLI::Option* find_option(const CLI::App& app, const std::string& name) {
  for (const CLI::Option* o : named_options(app))
    for (const auto& n : option_names(o))
      if (n == name) return o;
  return nullptr;
}

std::string command_path(const CLI::App& app) {
  if (app.get_parent() == nullptr) return app.get_name();
  return command_path(*app.get_parent()) + " " + app.get_name();
}

std::vector<const CLI::App*> all_commands(const CLI::App& app) {
  std::vector<const CLI::App*> out{&app};
  for (const CLI::App* s : visible_subcommands(app)) {
    auto below = all_commands(*s);
    out.insert(out.end(), below.begin(), below.end());
  }
  return out;
}

}  // namespace paddock::cli
