// The agent's environment, assembled from layers with a fixed precedence (lowest first):
//   runtime  names from the invoking shell that pass_env lets through (TERM, LANG, ...)
//   synced   the user's own env file in their config dir (user_env_file)
//   managed  [agents.X.env] in host.toml
//   files    the managed env_files, in the order listed
// A later layer replaces an earlier one's value; nothing the user controls outranks a managed value.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "paddock/result.h"

namespace paddock::host {

struct EnvVar {
  std::string name;
  std::string value;
  std::string layer;   // "runtime", "synced", "managed", "managed file"
  std::string source;  // "FILE:LINE", "host.toml:LINE:COL", "the invoking shell"
};

// KEY=VALUE lines ("export KEY=VALUE" too); blank lines and lines starting with '#' are skipped;
// a value wholly in matching "..." or '...' loses the quotes (nothing inside is interpreted).
// Errors name FILE:LINE.
Result<std::vector<EnvVar>> parse_env_text(std::string_view text, const std::string& file, const std::string& layer);

// NAME=VALUE strings of ENVIRON whose names match PATTERNS ("NAME" or "PREFIX*").
std::vector<EnvVar> runtime_env(const std::vector<std::string>& environ, const std::vector<std::string>& patterns);

struct MergedEnv {
  std::vector<EnvVar> effective;   // one per name, sorted by name
  std::vector<EnvVar> overridden;  // values a higher layer replaced, in layer order
};
// LAYERS lowest precedence first.
MergedEnv merge_env(const std::vector<std::vector<EnvVar>>& layers);

}  // namespace paddock::host
