#include "mcp/tokens.h"

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>

namespace paddock::mcp {
namespace {

TEST(Tokens, SeveralNamedTokensWithLimitsAndScopes) {
  auto s = parse_token_file(
      "# fleet tokens\n"
      "alice  aaaaaaaaaaaaaaaaaaaa max_concurrency=4 calls_per_minute=600\n"
      "\n"
      "bob\tbbbbbbbbbbbbbbbb#bbbb   # a '#' inside a token is part of it\n"
      "prom   pppppppppppppppppppp scope=metrics\n"
      "ops    oooooooooooooooooooo scope=mcp,metrics\n",
      "tokens");
  ASSERT_TRUE(s.ok()) << s.error().describe();
  ASSERT_EQ(s->tokens().size(), 4u);
  const Token& a = s->tokens()[0];
  EXPECT_EQ(a.name, "alice");
  EXPECT_EQ(a.limits.max_concurrency, 4u);
  EXPECT_EQ(a.limits.calls_per_minute, 600u);
  EXPECT_TRUE(a.mcp);
  EXPECT_FALSE(a.metrics) << "named tokens read /metrics only with scope=metrics";
  EXPECT_EQ(s->tokens()[1].secret, "bbbbbbbbbbbbbbbb#bbbb");
  EXPECT_FALSE(s->tokens()[2].mcp);
  EXPECT_TRUE(s->tokens()[2].metrics);
  EXPECT_TRUE(s->tokens()[3].mcp && s->tokens()[3].metrics);

  EXPECT_EQ(s->match("Bearer aaaaaaaaaaaaaaaaaaaa")->name, "alice");
  EXPECT_EQ(s->match("bearer pppppppppppppppppppp")->name, "prom");
  EXPECT_EQ(s->match("Bearer aaaaaaaaaaaaaaaaaaa"), nullptr);
  EXPECT_EQ(s->match("Bearer aaaaaaaaaaaaaaaaaaaaa"), nullptr);
  EXPECT_EQ(s->match(""), nullptr);
}

TEST(Tokens, ABareTokenIsTheDefaultWithBothScopes) {
  auto s = parse_token_file("secret-token-0123456789\n", "t");
  ASSERT_TRUE(s.ok()) << s.error().describe();
  ASSERT_EQ(s->tokens().size(), 1u);
  EXPECT_EQ(s->tokens()[0].name, "default");
  EXPECT_EQ(s->tokens()[0].secret, "secret-token-0123456789");
  EXPECT_TRUE(s->tokens()[0].mcp && s->tokens()[0].metrics);
}

TEST(Tokens, ErrorsSayWhereAndWhat) {
  auto err = [](std::string_view text) {
    auto s = parse_token_file(text, "tokens");
    return s.ok() ? std::string("ok") : s.error().describe();
  };
  EXPECT_EQ(err("short\n"), "tokens:1:1: token is shorter than 16 characters");
  EXPECT_EQ(err("a aaaaaaaaaaaaaaaaaaaa\nb bbbbbbbbbbbbbbbbbbbb max_concurency=3\n"),
            "tokens:2:24: unknown key \"max_concurency\"");
  EXPECT_EQ(err("a aaaaaaaaaaaaaaaaaaaa calls_per_minute=ten\n"),
            "tokens:1:41: calls_per_minute: expected a whole number");
  EXPECT_EQ(err("a aaaaaaaaaaaaaaaaaaaa\na cccccccccccccccccccc\n"),
            "tokens:2:1: token name \"a\" appears twice");
  EXPECT_EQ(err("a aaaaaaaaaaaaaaaaaaaa\nb aaaaaaaaaaaaaaaaaaaa\n"),
            "tokens:2:3: the token of \"b\" is also another name's: each caller needs its own");
  EXPECT_EQ(err("a/b aaaaaaaaaaaaaaaaaaaa\nx y\n"),
            "tokens:1:1: token name must be 1-64 letters, digits, '_', '-' or '.'");
  EXPECT_EQ(err("a aaaaaaaaaaaaaaaaaaaa scope=admin\n"), "tokens:1:30: unknown scope \"admin\" (expected mcp, metrics)");
  EXPECT_EQ(err("a aaaaaaaaaaaaaaaaaaaa\nb\n"), "tokens:2:2: token \"b\" has no secret");
  EXPECT_EQ(err("# nothing\n\n"), "tokens: no token in the file");
}

TEST(Tokens, TokenFileMustBePrivate) {
  char dir[] = "/tmp/paddock-token-XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  std::string path = std::string(dir) + "/token";
  FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs("secret-token-0123456789\n", f);
  std::fclose(f);
  ASSERT_EQ(::chmod(path.c_str(), 0640), 0);
  EXPECT_FALSE(read_token_file(path).ok());
  ASSERT_EQ(::chmod(path.c_str(), 0604), 0);
  EXPECT_FALSE(read_token_file(path).ok());
  ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
  auto t = read_token_file(path);
  ASSERT_TRUE(t.ok()) << t.error().describe();
  EXPECT_EQ(t->tokens()[0].secret, "secret-token-0123456789");
  EXPECT_FALSE(read_token_file(dir).ok());
  std::string link = std::string(dir) + "/link";
  ASSERT_EQ(::symlink(path.c_str(), link.c_str()), 0);
  EXPECT_FALSE(read_token_file(link).ok());
  ::unlink(link.c_str());
  ::unlink(path.c_str());
  ::rmdir(dir);
}

}  // namespace
}  // namespace paddock::mcp
