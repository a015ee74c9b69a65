#include "cli/suggest.h"

#include <gtest/gtest.h>

#include "cli/app.h"

namespace paddock::cli {
namespace {

// The real tree: the words suggested are paddock's own.
Diagnosis on(std::vector<std::string> args) {
  CLI::App app;
  build_app(app);
  return diagnose(app, args);
}

// No command runs: every callback is taken off first (a parse that succeeds would otherwise run).
void disarm(CLI::App& app) {
  app.callback(std::function<void()>());
  for (CLI::App* s : app.get_subcommands([](CLI::App*) { return true; })) disarm(*s);
}

std::string message(std::vector<std::string> args) {
  CLI::App app;
  build_app(app, args.empty() ? std::string() : args[0]);
  disarm(app);
  std::vector<std::string> rev(args.rbegin(), args.rend());
  try {
    app.parse(rev);
  } catch (const CLI::ParseError& e) {
    Diagnosis d = explain_parse_error(app, args, e);
    return d.command + ": " + d.message;
  }
  return "parsed";
}

TEST(Diagnose, UnknownCommandGetsTheNearest) {
  Diagnosis d = on({"runn"});
  EXPECT_EQ(d.command, "paddock");
  EXPECT_EQ(d.message, "unknown command \"runn\" (did you mean \"run\"?)");
  EXPECT_EQ(on({"jail", "craete", "x"}).message, "unknown command \"craete\" (did you mean \"create\"?)");
  EXPECT_EQ(on({"jail", "craete", "x"}).command, "paddock jail");
  // Nothing near: no guess.
  EXPECT_EQ(on({"frobnicate"}).message, "unknown command \"frobnicate\"");
  // Hidden commands are neither suggested nor an answer to a typo.
  EXPECT_EQ(on({"__man_"}).message, "unknown command \"__man_\"");
}

TEST(Diagnose, UnknownOptionGetsTheNearestOfItsCommand) {
  Diagnosis d = on({"run", "--alow", "x"});
  EXPECT_EQ(d.command, "paddock run");
  EXPECT_EQ(d.message, "unknown option \"--alow\" (did you mean \"--allow\"?)");
  EXPECT_EQ(on({"run", "--alow=x"}).message, "unknown option \"--alow\" (did you mean \"--allow\"?)");
  EXPECT_EQ(on({"jail", "create", "x", "--workspce", "copy"}).message,
            "unknown option \"--workspce\" (did you mean \"--workspace\"?)");
  EXPECT_EQ(on({"undo", "restore", "--dryrun"}).message, "unknown option \"--dryrun\" (did you mean \"--dry-run\"?)");
  // A flag takes no value: what follows it is looked at.
  EXPECT_EQ(on({"run", "--allow-net", "--alow", "x"}).message, "unknown option \"--alow\" (did you mean \"--allow\"?)");
  // Options of another command are not suggested here.
  EXPECT_EQ(on({"doctor", "--allow"}).message, "unknown option \"--allow\"");
}

TEST(Diagnose, ValuesAndPositionalsAreNotMistakes) {
  EXPECT_EQ(on({"run", "--allow", "runn", "--profile", "claude"}).message, "");
  EXPECT_EQ(on({"jail", "exec", "myjail", "--read", "/x"}).message, "");
  EXPECT_EQ(on({"undo", "show", "20261128T000000Z-1"}).message, "");
  EXPECT_EQ(on({"doctor", "extra"}).message, "unexpected argument \"extra\"");
}

TEST(ParseError, EachMistakeSaysWhereAndSuggests) {
  EXPECT_EQ(message({"runn"}), "paddock: unknown command \"runn\" (did you mean \"run\"?)");
  EXPECT_EQ(message({"run", "--alow", "x"}), "paddock run: unknown option \"--alow\" (did you mean \"--allow\"?)");
  EXPECT_EQ(message({"jail", "create", "x", "--workspace", "overlayy"}),
            "paddock jail create: --workspace: \"overlayy\" is not one of host, copy, overlay, worktree (did you "
            "mean \"overlay\"?)");
  EXPECT_EQ(message({"run", "--backend", "bubblewarp"}),
            "paddock run: --backend: \"bubblewarp\" is not one of native, bubblewrap, systemd-run (did you mean "
            "\"bubblewrap\"?)");
  EXPECT_EQ(message({"why", "--op", "wirte"}),
            "paddock why: --op: \"wirte\" is not one of read, write, exec (did you mean \"write\"?)");
  EXPECT_EQ(message({"integrate", "claudee"}),
            "paddock integrate: agent: \"claudee\" is not one of claude, codex (did you mean \"claude\"?)");
  EXPECT_EQ(message({"completion", "bsh"}),
            "paddock completion: shell: \"bsh\" is not one of bash, zsh, fish (did you mean \"bash\"?)");
  EXPECT_EQ(message({}), "paddock: a command is required: run, why, doctor, mcp, integrate, host, jail, undo, "
                         "checkpoint, completion, version");
  EXPECT_EQ(message({"jail"}), "paddock jail: a command is required: create, exec, enter, list, show, rm, diff, "
                               "sync, prune");
}

TEST(ParseError, BwrapIsBubblewrap) {
  EXPECT_EQ(message({"run", "--backend", "bwrap", "x"}), "parsed");
  EXPECT_EQ(message({"jail", "create", "j", "--backend", "bwrap"}), "parsed");
}

}  // namespace
}  // namespace paddock::cli
