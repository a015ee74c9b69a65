// paddock checkpoint [LABEL...]: run inside a `paddock run --undo`, asks the paddock outside for a
// snapshot now (docs/undo.md, "Checkpoints"). Thin over undo/checkpoint.h: it can only ask.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/footer.h"
#include "undo/checkpoint.h"

namespace paddock::cli {
namespace {

struct CheckpointFlags {
  std::vector<std::string> words;
  bool if_available = false;
};

int do_checkpoint(const CheckpointFlags& f) {
  std::string label;
  for (const auto& w : f.words) label += (label.empty() ? "" : " ") + w;
  const char* env = std::getenv(undo::kCheckpointFdEnv);
  if (env == nullptr || *env == '\0') {
    if (f.if_available) return 0;
    print_error(make_error(std::string(undo::kCheckpointFdEnv) + " is not set: this is not inside a `paddock run --undo`",
                           "paddock checkpoint", "--if-available makes this a quiet no-op (for hooks that also run outside paddock)"));
    return 1;
  }
  char* end = nullptr;
  errno = 0;
  const long fd = std::strtol(env, &end, 10);
  if (errno != 0 || *end != '\0' || fd < 3 || fd > 1 << 20) {
    print_error(make_error(std::string(undo::kCheckpointFdEnv) + "=" + env + " is not a descriptor number"));
    return 1;
  }
  auto r = undo::ask_for_checkpoint(static_cast<int>(fd), label);
  if (!r) {
    print_error(r.error());
    return 1;
  }
  std::printf("[paddock] checkpoint %s%s%s\n", r->c_str(), label.empty() ? "" : ": ", label.c_str());
  return 0;
}

}  // namespace

void register_checkpoint(CLI::App& app) {
  auto f = std::make_shared<CheckpointFlags>();
  auto* cmd = app.add_subcommand(
      "checkpoint", "Inside a `paddock run --undo`: ask paddock for a snapshot now (paddock undo restore SESSION:N returns to it)");
  cmd->add_option("label", f->words, "What the snapshot is (\"before refactor\"); at most 200 bytes");
  cmd->add_flag("--if-available", f->if_available, "Exit 0 quietly when not inside a `paddock run --undo`");
  cmd->callback([f] { set_exit_code(do_checkpoint(*f)); });
}

}  // namespace paddock::cli
