// THE protected-path list. A protected path stays read-only (or, when absent, may not be created)
// even inside a writable area, because something on the host runs it later with the user's full
// rights: an escape route that outlives the sandbox. A rule naming exactly the path lifts it.
//
// Deliberately NOT protected: .env files (data the project needs to write), .gitignore,
// Makefiles and build scripts (the user runs those knowingly and reviews diffs), package.json.
#include "policy/protected_paths.h"

#include "agents/agent.h"

namespace paddock {

namespace {

const std::vector<ProtectedEntry>& workspace_entries_of_tools() {
  static const std::vector<ProtectedEntry> entries = {
      // Version control. The rest of a repository's control files are checked after the run
      // (src/gate/git_watch.cc); these two are kept read-only during it.
      {".git/hooks", "git hooks run by git on the host"},
      {".git/config", "git config can name programs git runs on the host (core.fsmonitor, core.hooksPath, aliases)"},
      {".husky", "husky git hooks run on the host"},
      {".pre-commit-config.yaml", "pre-commit runs the hooks it names on the host"},
      {"lefthook.yml", "lefthook runs the commands it names from the git hooks it installed"},
      {".lefthook.yml", "lefthook runs the commands it names from the git hooks it installed"},
      {"lefthook-local.yml", "lefthook runs the commands it names from the git hooks it installed"},
      // Shell environment managers: run in the user's shell on cd.
      {".envrc", "direnv runs it in the user's shell on cd"},
      {"mise.toml", "mise runs its hooks and sources its env scripts in the user's shell on cd"},
      {".mise.toml", "mise runs its hooks and sources its env scripts in the user's shell on cd"},
      {"mise.local.toml", "mise runs its hooks and sources its env scripts in the user's shell on cd"},
      {".mise.local.toml", "mise runs its hooks and sources its env scripts in the user's shell on cd"},
      {".config/mise.toml", "mise runs its hooks and sources its env scripts in the user's shell on cd"},
      {".config/mise", "mise runs the hooks and sources the env scripts of its config files here on cd"},
      {".mise", "mise runs the hooks and sources the env scripts of its config files here on cd"},
      {"mise/config.toml", "mise runs its hooks and sources its env scripts in the user's shell on cd"},
      // Version managers: the toolchain they start in this directory, for any command (an
      // editor's or a prompt's `rustc --version` included).
      {".tool-versions", "asdf and mise run a `path:` version's programs from the directory it names, on cd and for every shimmed command"},
      {"rust-toolchain.toml", "rustup runs cargo and rustc from the toolchain it names (`path`: any directory) for every command in this directory"},
      {"rust-toolchain", "rustup runs cargo and rustc from the toolchain it names (`path`: any directory) for every command in this directory"},
      // Editors and IDEs: tasks, launch and run configurations, language servers, MCP servers.
      {".vscode", "VS Code runs its tasks (some on folder open), launch configurations, MCP servers (mcp.json) and the programs settings name"},
      {".idea", "JetBrains IDEs run its run configurations, external tools, startup tasks and file watchers"},
      {".run", "JetBrains shared run configurations"},
      {".zed", "Zed runs its tasks and the language servers its settings name"},
      {".helix", "Helix starts the language servers languages.toml names"},
      {".nvim.lua", "neovim runs it on start in this directory (exrc)"},
      {".exrc", "vim and neovim run it on start in this directory (exrc)"},
      {".devcontainer", "dev container definitions build and run containers on the host"},
      {".devcontainer.json", "dev container definition builds and runs containers on the host"},
      // Coding agents' project settings: hooks they run and MCP servers they start on the host.
      // The registered agents declare theirs (src/agents/NAME.cc, appended below); Cursor is
      // not an agent paddock runs, but a project it opens on the host trusts this.
      {".cursor", "Cursor starts the MCP servers (mcp.json) and runs the hooks it holds"},
      // Build and package tools: programs they run on the next build or install.
      {".cargo/config.toml", "cargo runs the programs it names (runner, rustc-wrapper, linker) and its aliases"},
      {".cargo/config", "cargo runs the programs it names (runner, rustc-wrapper, linker) and its aliases"},
      {".npmrc", "npm takes script-shell, node-options and the registry it installs from here"},
      {".yarnrc.yml", "Yarn runs the release yarnPath names and loads the plugins it lists"},
      {".yarnrc", "Yarn 1 runs the yarn-path it names"},
      {".pnpmfile.cjs", "pnpm runs its hooks on every install"},
  };
  return entries;
}

}  // namespace

const std::vector<ProtectedEntry>& workspace_protected_entries() {
  static const std::vector<ProtectedEntry> entries = [] {
    std::vector<ProtectedEntry> all = workspace_entries_of_tools();
    for (const AgentInfo& a : agents()) all.insert(all.end(), a.project_files.begin(), a.project_files.end());
    return all;
  }();
  return entries;
}

const std::vector<ProtectedEntry>& home_protected_entries() {
  static const std::vector<ProtectedEntry> entries = {
      {".bashrc", "run by every interactive bash on the host"},
      {".bash_profile", "run by bash login shells on the host"},
      {".bash_login", "run by bash login shells on the host"},
      {".bash_logout", "run when a bash login shell exits on the host"},
      {".profile", "run by login shells on the host"},
      {".zshrc", "run by every interactive zsh on the host"},
      {".zprofile", "run by zsh login shells on the host"},
      {".zshenv", "run by every zsh on the host"},
      {".zlogin", "run by zsh login shells on the host"},
      {".zlogout", "run when a zsh login shell exits on the host"},
      {".config/fish/config.fish", "run by every fish shell on the host"},
      {".config/fish/conf.d", "run by every fish shell on the host"},
      {".config/autostart", "desktop session starts these programs"},
      {".config/systemd/user", "systemd user units run on the host"},
      {".config/environment.d", "sets the environment of the user's systemd services"},
      {".gitconfig", "git config can name programs git runs on the host"},
      {".config/git/config", "git config can name programs git runs on the host"},
      {".ssh/rc", "run by sshd on every login"},
      {".local/bin", "programs on the user's PATH"},
      {".bin", "programs on the user's PATH"},
      {".xprofile", "run by the display manager at login"},
      {".xsessionrc", "run by the X session at login"},
      {".pam_environment", "sets the environment at login"},
      {".vimrc", "vim runs its commands on start"},
      {".config/nvim/init.vim", "neovim runs its commands on start"},
      {".config/nvim/init.lua", "neovim runs its commands on start"},
      {".emacs", "emacs evaluates it on start"},
      {".emacs.d/init.el", "emacs evaluates it on start"},
      {".inputrc", "readline key bindings (can bind keys to shell commands)"},
  };
  return entries;
}

}  // namespace paddock
