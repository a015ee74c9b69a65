// The command line as a whole: what every command and option must say, checked on the real tree.
#include "cli/app.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "cli/app_tree.h"
#include "cli/arg_values.h"
#include "cli/version.h"
#include "paddock/profile.h"

namespace paddock::cli {
namespace {

TEST(App, EveryValueHasAPlaceholderFromOneVocabulary) {
  CLI::App app;
  build_app(app);
  const auto& known = known_placeholders();
  for (const CLI::App* c : all_commands(app)) {
    auto opts = named_options(*c);
    auto pos = positionals(*c);
    opts.insert(opts.end(), pos.begin(), pos.end());
    for (const CLI::Option* o : opts) {
      const std::string where = command_path(*c) + " " + o->get_name();
      EXPECT_FALSE(o->get_description().empty()) << where;
      const ValueSpec v = value_spec(o);
      if (v.kind == ValueKind::None) continue;
      if (v.kind == ValueKind::Choice) {
        std::string joined;
        for (const auto& w : v.choices) joined += (joined.empty() ? "" : "|") + w;
        EXPECT_EQ(o->get_type_name(), joined) << where;
        continue;
      }
      EXPECT_NE(std::find(known.begin(), known.end(), o->get_type_name()), known.end())
          << where << " shows \"" << o->get_type_name() << "\" (CLI11's TEXT/INT, or a word not in known_placeholders())";
    }
  }
}

TEST(App, EveryCommandSaysWhatItDoes) {
  CLI::App app;
  build_app(app);
  for (const CLI::App* c : all_commands(app)) EXPECT_FALSE(c->get_description().empty()) << command_path(*c);
}

TEST(App, ProfileHelpNamesEveryAgent) {
  CLI::App app;
  build_app(app);
  for (const char* cmd : {"run", "why"}) {
    const CLI::Option* p = find_option(*find_subcommand(app, cmd), "--profile");
    ASSERT_NE(p, nullptr);
    for (const auto& name : builtin_profile_names()) {
      if (name == "default") continue;
      EXPECT_NE(p->get_description().find(name), std::string::npos) << cmd << " --profile does not name " << name;
    }
  }
}

TEST(App, OnlyTheNamedCommandIsBuiltForSpeed) {
  CLI::App app;
  build_app(app, "run");
  EXPECT_EQ(visible_subcommands(app).size(), 1u);
  CLI::App all;
  build_app(all, "runn");
  EXPECT_GT(visible_subcommands(all).size(), 10u);
}

TEST(App, VersionNamesCommitAndBuildType) {
  const std::string v = version_text();
  EXPECT_EQ(v.rfind(std::string("paddock ") + PADDOCK_VERSION_FOR_TEST + " (commit ", 0), 0u) << v;
  EXPECT_NE(v.find(", "), std::string::npos) << v;
  EXPECT_EQ(v.back(), ')');
}

}  // namespace
}  // namespace paddock::cli
