// THE protected-path list. A protected path stays read-only (or, when absent, may not be created)
// even inside a writable area, because something on the host runs it later with the user's full
// rights: an escape route that outlives the sandbox. A rule naming exactly the path lifts it.
//
// Deliberately NOT protected: .env files (data the project needs to write), .gitignore,
// Makefiles and build scripts (the user runs those knowingly and reviews diffs), package.json.
#include "policy/protected_paths.h"

namespace paddock {

const std::vector<ProtectedEntry>& workspace_protected_entries() {
  static const std::vector<ProtectedEntry> entries = {
      {".git/hooks", "git hooks run by git on the host"},
      {".git/config", "git config can name programs git runs on the host (core.fsmonitor, core.hooksPath, aliases)"},
      {".envrc", "direnv runs it in the user's shell on cd"},
      {".vscode/tasks.json", "VS Code runs its tasks (some on folder open)"},
      {".vscode/settings.json", "VS Code settings can name programs it runs (terminal, linters)"},
      {".vscode/launch.json", "VS Code launch configurations run programs"},
      {".idea/workspace.xml", "JetBrains run configurations"},
      {".idea/runConfigurations", "JetBrains run configurations"},
      {".devcontainer", "dev container definitions build and run containers on the host"},
      {".devcontainer.json", "dev container definition builds and runs containers on the host"},
      {".pre-commit-config.yaml", "pre-commit runs the hooks it names on the host"},
      {".husky", "husky git hooks run on the host"},
  };
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
