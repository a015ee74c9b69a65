// The names completion offers that only exist at run time: profiles (built-in and the user's),
// jails and undo sessions, for `paddock __complete KIND`. Read only: nothing is created, no lock
// taken, no interrupted restore finished. Only names made of letters, digits and ._+- are given,
// so no shell that reads them can take one for code.
#pragma once

#include <string>
#include <vector>

namespace paddock::cli {

std::vector<std::string> profile_names();
std::vector<std::string> jail_names();
std::vector<std::string> session_names();

// Whether NAME may be printed for a shell: [A-Za-z0-9._+-], not starting with '-'.
bool plain_name(const std::string& name);

}  // namespace paddock::cli
