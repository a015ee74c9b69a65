#include "cli/man_page.h"

#include <gtest/gtest.h>

#include "cli/app.h"

namespace paddock::cli {
namespace {

std::map<std::string, std::string> prose_for_all(const CLI::App& app) {
  std::map<std::string, std::string> p{{"paddock.1", "# DESCRIPTION\n\nThe tool.\n"}};
  for (const CLI::App* s : app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); }))
    p["paddock-" + s->get_name() + ".1"] = "# DESCRIPTION\n\nAbout " + s->get_name() + ".\n\n# SEE ALSO\n\npaddock(1)\n";
  return p;
}

const ManPage* find(const std::vector<ManPage>& pages, const std::string& file) {
  for (const auto& p : pages)
    if (p.file() == file) return &p;
  return nullptr;
}

TEST(ManPages, OnePerCommandWithItsOptionsFromTheTree) {
  CLI::App app;
  build_app(app);
  auto pages = command_pages(app, prose_for_all(app), "paddock 9.9");
  ASSERT_TRUE(pages.ok()) << pages.error().describe();
  for (const char* f : {"paddock.1", "paddock-run.1", "paddock-jail.1", "paddock-undo.1", "paddock-completion.1"})
    EXPECT_NE(find(*pages, f), nullptr) << f;
  EXPECT_EQ(find(*pages, "paddock-__man.1"), nullptr);  // hidden commands have no page
  const ManPage* run = find(*pages, "paddock-run.1");
  ASSERT_NE(run, nullptr);
  const std::string& r = run->roff;
  EXPECT_EQ(r.rfind(".TH \"PADDOCK-RUN\" \"1\" \"\" \"paddock 9.9\" \"paddock manual\"\n", 0), 0u) << r.substr(0, 80);
  EXPECT_NE(r.find(".SH NAME\npaddock\\-run \\- Run a command confined to the current project\n"), std::string::npos);
  EXPECT_NE(r.find("\\fBpaddock run\\fR [\\fIOPTIONS\\fR] \\fB\\-\\-\\fR \\fICOMMAND\\fR [\\fIARG\\fR...]"),
            std::string::npos);
  EXPECT_NE(r.find(".TP\n\\fB\\-\\-allow\\fR \\fIPATH\\fR\nGrant read+write on PATH (repeatable)\n"), std::string::npos);
  EXPECT_NE(r.find(".SS \"Limits\"\n.TP\n\\fB\\-\\-memory\\fR \\fISIZE\\fR\n"), std::string::npos);
  EXPECT_NE(r.find("\\fB\\-\\-backend\\fR \\fInative|bubblewrap|systemd\\-run\\fR"), std::string::npos);
  // The prose follows, DESCRIPTION first.
  EXPECT_LT(r.find(".SH DESCRIPTION\n.PP\nAbout run.\n"), r.find(".SH OPTIONS"));
  EXPECT_GT(r.find(".SH \"SEE ALSO\""), r.find(".SH OPTIONS"));
  // A command with subcommands lists each with its own options.
  const std::string& j = find(*pages, "paddock-jail.1")->roff;
  EXPECT_NE(j.find(".SS \"paddock jail create\"\n\\fBpaddock jail create\\fR [\\fIOPTIONS\\fR] \\fINAME\\fR\n"),
            std::string::npos);
  EXPECT_NE(j.find("\\fB\\-\\-workspace\\fR \\fIhost|copy|overlay|worktree\\fR\nHow the workspace is made"),
            std::string::npos);
}

TEST(ManPages, ProseMustMatchTheCommands) {
  CLI::App app;
  build_app(app);
  auto prose = prose_for_all(app);
  prose.erase("paddock-jail.1");
  auto missing = command_pages(app, prose, "v");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().where, "docs/man/paddock-jail.1.md");

  prose = prose_for_all(app);
  prose["paddock-frob.1"] = "# DESCRIPTION\n\nGone.\n";
  auto orphan = command_pages(app, prose, "v");
  ASSERT_FALSE(orphan.ok());
  EXPECT_EQ(orphan.error().where, "docs/man/paddock-frob.1.md");

  prose = prose_for_all(app);
  prose["paddock-run.1"] = "# DESCRIPTION\n\nUse `--allow-network` and --alow.\n";
  auto stale = command_pages(app, prose, "v");
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.error().message, "mentions --allow-network, which no paddock command has");
}

TEST(ManPages, TheProfileFormatPage) {
  ManPage p = profile_page("# Profiles\n\nA profile is TOML.\n\n## Schema\n\n```toml\nextends = \"x\"\n```\n\n## Library\n\nC++.\n",
                           "v");
  EXPECT_EQ(p.file(), "paddock-profile.5");
  EXPECT_NE(p.roff.find(".SH DESCRIPTION\n.PP\nA profile is TOML.\n.SH SCHEMA\n"), std::string::npos) << p.roff;
  EXPECT_EQ(p.roff.find("C++"), std::string::npos);
}

}  // namespace
}  // namespace paddock::cli
