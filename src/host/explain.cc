// paddock host explain: for the invoking user, what the runner would apply, and from where.
#include <fcntl.h>
#include <unistd.h>

#include <climits>
#include <fstream>
#include <sstream>

#include "host/env.h"
#include "host/install.h"
#include "host/render.h"
#include "host/roots.h"
#include "host/runner.h"
#include "host/settings.h"
#include "policy/path_util.h"
#include "sys/read_file.h"

extern char** environ;

namespace paddock::host {
namespace {

std::string indent(const std::string& text, const std::string& pad) {
  std::string out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out += pad + line + "\n";
  return out;
}

}  // namespace

Result<std::string> explain(const HostConfig& cfg, const std::string& agent_filter, const UserDb& db) {
  auto me = db.by_uid(::getuid());
  if (!me) return make_error("you have no passwd entry");
  if (agent_filter.size() && cfg.agent(agent_filter) == nullptr) return make_error("no agent \"" + agent_filter + "\"", cfg.file);
  std::string out;
  char cwd_buf[PATH_MAX];
  const std::string cwd = ::getcwd(cwd_buf, sizeof cwd_buf) != nullptr ? cwd_buf : "";
  bool any = false;
  for (const AgentEntry& a : cfg.agents) {
    if (!agent_filter.empty() && a.name != agent_filter) continue;
    auto as = assemble(cfg, a.name, *me, db, *real_fs());
    if (!as) {
      if (!agent_filter.empty()) return std::move(as).take_error();
      continue;
    }
    any = true;
    out += "agent " + a.name + ": you type `" + a.command + "` (" + wrapper_path(cfg, a) + "); it runs " + a.binary +
           " as " + a.user + " in a paddock sandbox (profile " + a.profile + ")\n";
    out += "\nyour project roots (" + as->entry->where + "):\n" + describe_roots(as->roots);
    auto in_root = check_cwd(cwd, as->roots, me->name, *real_fs());
    out += "  here (" + cwd + "): " +
           (in_root ? "allowed, under " + in_root->given : std::string("refused, not under any of them")) + "\n";

    const std::string settings_path = path::join(as->config_dir, a.settings_file);
    const std::string env_path = path::join(as->config_dir, a.user_env_file);
    out += "\nconfig, copied on every run from your " + as->config_dir +
           (as->entry->config_source.empty() ? "" : " (config_source at " + as->entry->config_source_where + ")") +
           "\n  to the agent's " + path::join(as->state_home, a.config_source) +
           " (files you removed stay there; the agent's own sessions and logins live there too)\n";
    out += "\nsettings: " + settings_path + " (synced), then the managed [agents." + a.name +
           ".settings] deep-merged over it (managed values win)\n";
    auto synced_settings = sys::read_whole_file(settings_path);
    auto merged = merge_settings_text(synced_settings.value_or(""), settings_path, a.settings);
    if (!merged) {
      out += "  error: " + merged.error().describe() + " (the agent would not start)\n";
    } else if (a.settings.empty() && !synced_settings) {
      out += "  (none)\n";
    } else {
      out += "  the agent gets:\n" + indent(*merged, "    ");
    }

    out += "\nenvironment, lowest precedence first: runtime < synced < managed < managed files\n";
    std::string runtime_names;
    for (const auto& n : a.pass_env) runtime_names += (runtime_names.empty() ? "" : " ") + n;
    out += "  runtime: from your shell, only " + runtime_names + " (sudo keeps only these)\n";
    std::vector<EnvVar> synced;
    if (auto text = sys::read_whole_file(env_path)) {
      auto vars = parse_env_text(*text, env_path, "synced");
      if (!vars) out += "  synced: error: " + vars.error().describe() + " (the agent would not start)\n";
      else synced = *vars;
      out += "  synced: " + env_path + "\n";
    } else {
      out += "  synced: " + env_path + " (none)\n";
    }
    std::vector<std::vector<EnvVar>> layers;
    std::vector<std::string> envs;
    for (char** e = environ; e != nullptr && *e != nullptr; ++e) envs.emplace_back(*e);
    layers.push_back(runtime_env(envs, a.pass_env));
    layers.push_back(synced);
    std::vector<EnvVar> managed;
    for (const EnvEntry& e : a.env) managed.push_back({e.name, e.value, "managed", e.where});
    out += "  managed: [agents." + a.name + ".env] in " + cfg.file + "\n";
    layers.push_back(managed);
    std::vector<EnvVar> files;
    for (const auto& [file, where] : a.env_files) {
      auto text = sys::read_whole_file(file);
      if (!text) {
        out += "  managed file: " + file + " (not readable by you: its values are applied by the runner and not shown)\n";
        continue;
      }
      auto vars = parse_env_text(*text, file, "managed file");
      if (!vars) {
        out += "  managed file: error: " + vars.error().describe() + "\n";
        continue;
      }
      out += "  managed file: " + file + "\n";
      files.insert(files.end(), vars->begin(), vars->end());
    }
    layers.push_back(files);
    MergedEnv m = merge_env(layers);
    out += "  the agent gets (besides HOME, USER, PATH and the like, which the sandbox sets):\n";
    if (m.effective.empty()) out += "    (nothing)\n";
    for (const EnvVar& v : m.effective) {
      out += "    " + v.name + "=" + v.value + "    [" + v.layer + ": " + v.source + "]\n";
      for (const EnvVar& o : m.overridden)
        if (o.name == v.name) out += "      overrides " + o.layer + " " + o.name + "=" + o.value + " [" + o.source + "]\n";
    }
    out += "\n";
  }
  if (!any) {
    return make_error("you (" + me->name + ") may not use any agent on this host", cfg.file,
                      "an administrator adds [users." + me->name + "] with your roots");
  }
  return out;
}

}  // namespace paddock::host
