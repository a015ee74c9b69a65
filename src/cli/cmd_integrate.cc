// paddock integrate AGENT [--remove]: the agent's own files, changed once and reversibly, so that
// it explains paddock's refusals to its model (src/integrate/). Never done by `run`.
#include <cstdio>
#include <cstdlib>

#include "cli/arg_values.h"
#include "cli/commands.h"
#include "integrate/integrate.h"

namespace paddock::cli {

void register_integrate(CLI::App& app) {
  struct Flags {
    std::string agent;
    bool remove = false;
  };
  auto f = std::make_shared<Flags>();
  auto* cmd = app.add_subcommand(
      "integrate", "Teach an agent about paddock: claude (a hook that explains refusals to the model, and a "
                   "CLAUDE.md section), codex (an AGENTS.md section); --remove takes it back");
  one_of(cmd->add_option("agent", f->agent, "The agent to teach")->required(), integrate::agents());
  cmd->add_flag("--remove", f->remove, "Take the integration back");
  cmd->callback([f] {
    const char* home = std::getenv("HOME");
    auto r = integrate::apply(f->agent, home ? home : "", f->remove);
    if (!r) {
      print_command_error("paddock integrate", r.error());
      set_exit_code(2);
      return;
    }
    for (const auto& c : *r) std::printf("%s: %s\n", c.path.c_str(), c.what.c_str());
    set_exit_code(0);
  });
}

}  // namespace paddock::cli
