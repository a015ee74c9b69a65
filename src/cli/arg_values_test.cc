#include "cli/arg_values.h"

#include <gtest/gtest.h>

namespace paddock::cli {
namespace {

struct Parsed {
  std::string value;
  std::string error;
};

Parsed parse_workspace(std::vector<std::string> args) {
  CLI::App app{"t", "t"};
  std::string ws = "copy", backend;
  one_of(app.add_option("--workspace", ws, "How"), {"host", "copy", "overlay", "worktree"});
  one_of(app.add_option("--backend", backend, "Which"), {"native", "bubblewrap", "systemd-run"},
         {{"bwrap", "bubblewrap"}});
  std::vector<std::string> rev(args.rbegin(), args.rend());
  try {
    app.parse(rev);
  } catch (const CLI::ParseError& e) {
    return {"", e.what()};
  }
  return {ws + "/" + backend, ""};
}

TEST(OneOf, AcceptsItsWordsAndSuggestsTheNearestForOthers) {
  EXPECT_EQ(parse_workspace({"--workspace", "overlay"}).value, "overlay/");
  EXPECT_EQ(parse_workspace({}).value, "copy/");
  EXPECT_EQ(parse_workspace({"--workspace", "overlayy"}).error,
            "--workspace: \"overlayy\" is not one of host, copy, overlay, worktree (did you mean \"overlay\"?)");
  // Nothing near: the choices alone.
  EXPECT_EQ(parse_workspace({"--workspace", "zfs"}).error, "--workspace: \"zfs\" is not one of host, copy, overlay, worktree");
}

TEST(OneOf, AnAliasBecomesItsWord) {
  EXPECT_EQ(parse_workspace({"--backend", "bwrap"}).value, "copy/bubblewrap");
  EXPECT_EQ(parse_workspace({"--backend=bwrap"}).value, "copy/bubblewrap");
  // A typo of the alias points at the word it stands for.
  EXPECT_EQ(parse_workspace({"--backend", "bwarp"}).error,
            "--backend: \"bwarp\" is not one of native, bubblewrap, systemd-run (did you mean \"bubblewrap\"?)");
}

TEST(OneOf, HelpNamesTheChoicesAndTheDefaultOnce) {
  CLI::App app{"t", "t"};
  std::string ws = "copy";
  auto* o = one_of(app.add_option("--workspace", ws, "How the workspace is made"), {"host", "copy"});
  EXPECT_EQ(o->get_type_name(), "host|copy");
  EXPECT_EQ(o->get_description(), "How the workspace is made (default copy)");
  EXPECT_EQ(o->get_default_str(), "");
}

TEST(ValueSpec, TravelsWithTheOption) {
  CLI::App app{"t", "t"};
  std::string s, c;
  std::vector<std::string> v;
  bool flag = false;
  auto* jail = values(app.add_option("name", s, "The jail"), ValueKind::Jail, "JAIL");
  auto* paths = values(app.add_option("--allow", v, "Grant"), ValueKind::Path, "PATH");
  auto* choice = one_of(app.add_option("--op", c, "Op"), {"read", "write"}, {{"r", "read"}});
  auto* plain = app.add_option("--text", s, "Text");
  auto* f = app.add_flag("--json", flag, "JSON");
  EXPECT_EQ(value_spec(jail).kind, ValueKind::Jail);
  EXPECT_EQ(jail->get_type_name(), "JAIL");
  EXPECT_EQ(value_spec(paths).kind, ValueKind::Path);
  ValueSpec cs = value_spec(choice);
  EXPECT_EQ(cs.kind, ValueKind::Choice);
  EXPECT_EQ(cs.choices, (std::vector<std::string>{"read", "write"}));
  ASSERT_EQ(cs.aliases.size(), 1u);
  EXPECT_EQ(cs.aliases[0].alias, "r");
  EXPECT_EQ(cs.aliases[0].word, "read");
  EXPECT_EQ(value_spec(plain).kind, ValueKind::Text);
  EXPECT_EQ(value_spec(f).kind, ValueKind::None);
}

}  // namespace
}  // namespace paddock::cli
