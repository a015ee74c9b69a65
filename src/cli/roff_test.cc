#include "cli/roff.h"

#include <gtest/gtest.h>

namespace paddock::cli::roff {
namespace {

TEST(Roff, EscapesWhatRoffWouldRead) {
  EXPECT_EQ(text("a\\b"), "a\\eb");
  EXPECT_EQ(text(".hidden request"), "\\&.hidden request");
  EXPECT_EQ(text("'quote"), "\\&'quote");
  EXPECT_EQ(text("read-only"), "read-only");
  EXPECT_EQ(literal("--allow"), "\\-\\-allow");
  // Non-ASCII by code point, so groff prints it in any locale; broken UTF-8 as U+FFFD.
  EXPECT_EQ(text("a \xe2\x80\x94 b"), "a \\[u2014] b");
  EXPECT_EQ(text("\xff"), "\\[uFFFD]");
  EXPECT_EQ(text("tab\there"), "tab here");
}

TEST(Roff, InlineMarkdown) {
  EXPECT_EQ(inline_markdown("run `paddock run --allow X` now"), "run \\fBpaddock run \\-\\-allow X\\fR now");
  EXPECT_EQ(inline_markdown("**bold** and *it*"), "\\fBbold\\fR and \\fIit\\fR");
  EXPECT_EQ(inline_markdown("see [the docs](docs/x.md#y)."), "see the docs.");
  // A lone star, a glob, are text.
  EXPECT_EQ(inline_markdown("*.example.com and 2 * 3"), "*.example.com and 2 * 3");
  EXPECT_EQ(inline_markdown("`*.example.com`"), "\\fB*.example.com\\fR");
  EXPECT_EQ(inline_markdown(".starts with a dot"), "\\&.starts with a dot");
}

TEST(Roff, MarkdownSectionsListsCodeAndTables) {
  const std::string md =
      "# Title\n"
      "Intro line one\nline two.\n\n"
      "## Where\n\n"
      "1. first item\n   continued\n2. second\n\n"
      "- a bullet\n\n"
      "```toml\n"
      "allow = [\"~/src\"]  # -- comment\n"
      ".dotted\n"
      "```\n"
      "### Sub\n"
      "| path | in the profile | why |\n"
      "|---|---|---|\n"
      "| `~/.x` | read-only | hooks |\n"
      "## Library\n"
      "dropped\n";
  auto s = from_markdown(md, 2, {"Library"});
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].title, "");
  EXPECT_EQ(s[0].body, ".PP\nIntro line one line two.\n");
  EXPECT_EQ(s[1].title, "WHERE");
  EXPECT_EQ(s[1].body,
            ".IP 1. 4\nfirst item continued\n.IP 2. 4\nsecond\n.IP \\(bu 4\na bullet\n"
            ".PP\n.RS 4\n.nf\nallow = [\"~/src\"]  # \\-\\- comment\n\\&.dotted\n.fi\n.RE\n");
  EXPECT_EQ(s[2].title, "SUB");
  EXPECT_EQ(s[2].level, 2);
  EXPECT_EQ(s[2].body, ".TP\n\\fB~/.x\\fR\nin the profile: read-only\n.br\nwhy: hooks\n");
}

}  // namespace
}  // namespace paddock::cli::roff
