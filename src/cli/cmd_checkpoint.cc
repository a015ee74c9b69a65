// paddock checkpoint [LABEL...]: run inside a `paddock run --undo`, asks the paddock outside for a
// snapshot now (docs/undo.md, "Checkpoints"). Thin over undo/checkpoint.h: it can only ask.
#include <sys/socket.h>
#include <sys/stat.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/arg_values.h"
#include "cli/commands.h"
#include "cli/footer.h"
#include "undo/checkpoint.h"

namespace paddock::cli {
namespace {

struct CheckpointFlags {
  std::vector<std::string> words;
  bool if_available = false;
};

// The doors to try, in order (undo/checkpoint.h): the inherited descriptor, then the socket beside
// the policy file, then the two places paddock puts it.
std::vector<std::string> socket_candidates() {
  std::vector<std::string> out;
  if (const char* pol = std::getenv("PADDOCK_POLICY"); pol != nullptr && *pol == '/') {
    std::string dir(pol);
    dir.erase(dir.rfind('/'));
    out.push_back(dir + "/" + undo::kCheckpointSocketName);
  }
  for (const char* d : {"/.paddock", "/dev/.paddock"}) out.push_back(std::string(d) + "/" + undo::kCheckpointSocketName);
  return out;
}

int do_checkpoint(const CheckpointFlags& f) {
  std::string label;
  for (const auto& w : f.words) label += (label.empty() ? "" : " ") + w;
  std::optional<Result<std::string>> r;
  std::string fd_problem;
  if (const char* env = std::getenv(undo::kCheckpointFdEnv); env != nullptr && *env != '\0') {
    char* end = nullptr;
    errno = 0;
    const long fd = std::strtol(env, &end, 10);
    int type = 0;
    socklen_t len = sizeof(type);
    if (errno == 0 && *end == '\0' && fd >= 3 && fd <= INT_MAX &&
        getsockopt(static_cast<int>(fd), SOL_SOCKET, SO_TYPE, &type, &len) == 0 && type == SOCK_SEQPACKET) {
      r = undo::ask_for_checkpoint(static_cast<int>(fd), label);
    } else {
      // Closed on the way here (a program that starts others with only stdio): the socket next.
      fd_problem = std::string(undo::kCheckpointFdEnv) + "=" + env +
                   " is not paddock's checkpoint channel here (a program between paddock and this one closed it)";
    }
  }
  for (const std::string& path : socket_candidates()) {
    struct stat st;
    if (r || lstat(path.c_str(), &st) != 0 || !S_ISSOCK(st.st_mode)) continue;
    r = undo::ask_for_checkpoint_at(path, label);
  }
  if (!r) {
    if (!fd_problem.empty()) {
      print_command_error("paddock checkpoint", make_error(fd_problem));
      return 1;
    }
    if (f.if_available) return 0;
    print_command_error("paddock checkpoint",
                        make_error("no checkpoint channel: this is not inside a `paddock run --undo`", {},
                                   "--if-available makes this a quiet no-op (for hooks that also run outside paddock)"));
    return 1;
  }
  if (!*r) {
    print_command_error("paddock checkpoint", r->error());
    return 1;
  }
  std::printf("[paddock] checkpoint %s%s%s\n", (*r)->c_str(), label.empty() ? "" : ": ", label.c_str());
  return 0;
}

}  // namespace

void register_checkpoint(CLI::App& app) {
  auto f = std::make_shared<CheckpointFlags>();
  auto* cmd = app.add_subcommand(
      "checkpoint", "Inside a `paddock run --undo`: ask paddock for a snapshot now (paddock undo restore SESSION:N returns to it)");
  values(cmd->add_option("label", f->words, "What the snapshot is (\"before refactor\"); at most 200 bytes"),
         ValueKind::Text, "LABEL");
  cmd->add_flag("--if-available", f->if_available, "Exit 0 quietly when not inside a `paddock run --undo`");
  cmd->callback([f] { set_exit_code(do_checkpoint(*f)); });
}

}  // namespace paddock::cli
