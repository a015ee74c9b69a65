// paddock completion bash|zsh|fish: the completion script for SHELL, from the command line's own
// definition (completion.h). `paddock __complete profile|jail|session` (hidden) prints the names
// those scripts offer (value_sources.h).
#include <cstdio>
#include <memory>

#include "cli/app.h"
#include "cli/arg_values.h"
#include "cli/commands.h"
#include "cli/completion.h"
#include "cli/value_sources.h"
#include "cli/version.h"

namespace paddock::cli {

void register_completion(CLI::App& app) {
  auto shell = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("completion", "Print the shell completion script for bash, zsh or fish");
  one_of(cmd->add_option("shell", *shell, "The shell the script is for")->required(), {"bash", "zsh", "fish"});
  cmd->callback([shell] {
    // The whole tree, whatever this run registered.
    CLI::App full;
    build_app(full);
    const Shell s = *shell == "zsh" ? Shell::Zsh : *shell == "fish" ? Shell::Fish : Shell::Bash;
    const std::string text = completion_script(full, s, version_text());
    std::fwrite(text.data(), 1, text.size(), stdout);
    set_exit_code(0);
  });
}

void register_complete_values(CLI::App& app) {
  auto kind = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("__complete", "Names for the completion scripts");
  cmd->group("");  // hidden
  one_of(cmd->add_option("kind", *kind, "What to list")->required(), {"profile", "jail", "session"});
  cmd->callback([kind] {
    const auto names = *kind == "profile" ? profile_names() : *kind == "jail" ? jail_names() : session_names();
    for (const auto& n : names) std::printf("%s\n", n.c_str());
    set_exit_code(0);
  });
}

}  // namespace paddock::cli
