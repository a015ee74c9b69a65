#include "policy/profile_keys.h"

namespace paddock {

const std::vector<ProfileTable>& profile_tables() {
  static const std::vector<ProfileTable> tables = {
      {"", {"extends", "description", "filesystem", "network", "env", "limits", "sandbox", "command", "undo",
            "footer"}},
      {"filesystem",
       {"allow", "read", "write", "allow_if_exists", "read_if_exists", "write_if_exists", "create", "create_files",
        "cwd"}},
      {"network", {"mode", "allow", "deny"}},
      {"env", {"pass", "set"}},
      {"limits",
       {"memory", "pids", "cpu", "timeout", "tmp_size", "home_size", "shm_size", "max_file_size", "max_open_files",
        "core_dumps", "best_effort"}},
      {"sandbox", {"require_namespaces", "refuse_discarded_writes"}},
      {"undo", {"enabled", "excludes", "default_excludes", "max_checkpoints", "max_bytes", "store_quota"}},
      {"command", {"name", "args", "conflicts", "conflict_message"}},
      {"footer", {"quiet"}},
  };
  return tables;
}

const std::vector<std::string>& profile_keys(std::string_view table) {
  static const std::vector<std::string> none;
  for (const auto& t : profile_tables())
    if (t.name == table) return t.keys;
  return none;
}

}  // namespace paddock
