// What every command shares with main.cc: its exit code, the arguments after "--", and how an
// error is printed.
#include <cstdio>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "sys/display.h"

namespace paddock::cli {
namespace {
int g_exit_code = 0;
std::vector<std::string> g_after_dashes;
bool g_have_dashes = false;
}  // namespace

void set_exit_code(int code) { g_exit_code = code; }
int exit_code() { return g_exit_code; }
const std::vector<std::string>* command_after_dashes() { return g_have_dashes ? &g_after_dashes : nullptr; }
void set_command_after_dashes(std::vector<std::string> args) {
  g_after_dashes = std::move(args);
  g_have_dashes = true;
}

void print_command_error(const std::string& who, const Error& e) {
  Error shown = e;
  // "paddock why: why: ..." or "paddock integrate: paddock integrate: ...": said once.
  const std::string bare = who.rfind("paddock ", 0) == 0 ? who.substr(8) : who;
  if (shown.where == who || shown.where == bare) shown.where.clear();
  // Through the one printer: an error names paths, and a path may be one the sandbox chose.
  std::fprintf(stderr, "%s: %s\n", who.c_str(), sys::display(shown.describe()).c_str());
  if (!e.hint.empty()) std::fprintf(stderr, "%s: hint: %s\n", who.c_str(), sys::display(e.hint).c_str());
}

}  // namespace paddock::cli
