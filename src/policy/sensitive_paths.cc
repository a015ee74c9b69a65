// THE sensitive-path list. Every entry says what it protects. An entry is hidden (masked) when it
// would otherwise be visible through a rule on a parent directory; a rule naming exactly the path
// lifts it. Adding an entry here is the whole change: the builder, `why` and the engine use it.
#include "policy/sensitive_paths.h"

#include "policy/path_util.h"

namespace paddock {

const std::vector<SensitiveEntry>& sensitive_entries() {
  static const std::vector<SensitiveEntry> entries = {
      // Remote login and signing keys.
      {".ssh", "SSH keys, agent sockets and config"},
      {".gnupg", "GnuPG private keys and trust database"},
      // Cloud and cluster credentials.
      {".aws", "AWS credentials and config"},
      {".azure", "Azure CLI tokens"},
      {".config/gcloud", "Google Cloud credentials"},
      {".kube", "Kubernetes cluster credentials"},
      {".docker/config.json", "Docker registry credentials"},
      {".config/containers/auth.json", "Podman registry credentials"},
      {".oci", "Oracle Cloud credentials"},
      {".config/doctl", "DigitalOcean API token"},
      {".config/hcloud", "Hetzner Cloud API token"},
      {".vault-token", "HashiCorp Vault token"},
      {".terraform.d/credentials.tfrc.json", "Terraform Cloud token"},
      {".config/helm/registry", "Helm registry credentials"},
      // Package registry and VCS credentials.
      {".npmrc", "npm registry tokens"},
      {".yarnrc", "Yarn registry tokens"},
      {".yarnrc.yml", "Yarn registry tokens"},
      {".pypirc", "PyPI upload credentials"},
      {".config/pip/pip.conf", "pip index credentials"},
      {".netrc", "passwords for FTP/HTTP hosts (curl, git, pip)"},
      {".git-credentials", "git credential store (plain-text tokens)"},
      {".config/git/credentials", "git credential store (plain-text tokens)"},
      {".config/gh", "GitHub CLI token"},
      {".config/hub", "hub (GitHub) token"},
      {".config/glab-cli", "GitLab CLI token"},
      {".cargo/credentials", "crates.io token"},
      {".cargo/credentials.toml", "crates.io token"},
      {".gem/credentials", "RubyGems API key"},
      {".m2/settings.xml", "Maven repository passwords"},
      {".m2/settings-security.xml", "Maven master password"},
      {".gradle/gradle.properties", "Gradle repository and signing credentials"},
      {".nuget/NuGet/NuGet.Config", "NuGet feed credentials"},
      {".composer/auth.json", "Composer repository credentials"},
      {".config/composer/auth.json", "Composer repository credentials"},
      // Databases.
      {".pgpass", "PostgreSQL passwords"},
      {".my.cnf", "MySQL passwords"},
      {".mylogin.cnf", "MySQL login paths (obfuscated passwords)"},
      {".dbshell", "MongoDB shell history"},
      // Keyrings and password managers.
      {".local/share/keyrings", "GNOME keyring"},
      {".local/share/kwalletd", "KDE wallet"},
      {".password-store", "pass password store"},
      {".config/op", "1Password CLI session"},
      {".config/Bitwarden", "Bitwarden vault"},
      {".config/Bitwarden CLI", "Bitwarden CLI vault"},
      // Shell and REPL histories (often contain pasted secrets).
      {".bash_history", "shell history"},
      {".zsh_history", "shell history"},
      {".local/share/fish/fish_history", "shell history"},
      {".python_history", "Python REPL history"},
      {".node_repl_history", "Node.js REPL history"},
      {".psql_history", "PostgreSQL shell history"},
      {".mysql_history", "MySQL shell history"},
      {".sqlite_history", "SQLite shell history"},
      {".viminfo", "vim history and registers"},
      // Browsers and mail (cookies, saved passwords, session tokens).
      {".mozilla", "Firefox profiles (cookies, saved passwords)"},
      {".thunderbird", "Thunderbird mail and passwords"},
      {".config/google-chrome", "Chrome profiles (cookies, saved passwords)"},
      {".config/chromium", "Chromium profiles (cookies, saved passwords)"},
      {".config/BraveSoftware", "Brave profiles (cookies, saved passwords)"},
      {".config/microsoft-edge", "Edge profiles (cookies, saved passwords)"},
      {".config/vivaldi", "Vivaldi profiles (cookies, saved passwords)"},
      {".config/opera", "Opera profiles (cookies, saved passwords)"},
      {".var/app", "Flatpak application data (browser profiles, tokens)"},
      {"snap/firefox", "Firefox (snap) profiles (cookies, saved passwords)"},
      {"snap/chromium", "Chromium (snap) profiles (cookies, saved passwords)"},
      // Other agents' and tools' tokens that a different agent has no business reading.
      {".config/anthropic", "Anthropic API credentials"},
      {".config/openai", "OpenAI API credentials"},

      // System-wide secrets (normally unreadable for users; matters when paddock runs as root).
      {"/etc/shadow", "password hashes"},
      {"/etc/gshadow", "group password hashes"},
      {"/etc/shadow-", "password hashes (backup)"},
      {"/etc/gshadow-", "group password hashes (backup)"},
      {"/etc/sudoers", "sudo rules"},
      {"/etc/sudoers.d", "sudo rules"},
      {"/etc/ssh/ssh_host_rsa_key", "SSH host private key"},
      {"/etc/ssh/ssh_host_ecdsa_key", "SSH host private key"},
      {"/etc/ssh/ssh_host_ed25519_key", "SSH host private key"},
      {"/etc/ssh/ssh_host_dsa_key", "SSH host private key"},
      {"/etc/ssl/private", "TLS private keys"},
      {"/etc/security/opasswd", "old password hashes"},
      {"/etc/krb5.keytab", "Kerberos host keys"},
      {"/etc/wireguard", "WireGuard private keys"},
      {"/etc/NetworkManager/system-connections", "Wi-Fi and VPN passwords"},
      {"/root", "root's home directory"},
  };
  return entries;
}

std::vector<SensitivePath> sensitive_path_list(const std::string& home) {
  // Entries are clean relative paths (a test checks), so joining them to a normalised HOME
  // needs no second normalisation.
  const std::string h = path::normalize(home);
  std::vector<SensitivePath> out;
  out.reserve(sensitive_entries().size());
  for (const auto& e : sensitive_entries()) {
    std::string p = e.path[0] == '/' ? std::string(e.path) : path::join(h, e.path);
    // The user's own HOME is never sensitive to the user (root's HOME is /root).
    if (!home.empty() && path::is_at_or_under(h, p)) continue;
    out.push_back({std::move(p), e.reason});
  }
  return out;
}

std::vector<DeniedPath> sensitive_paths(const std::string& home) {
  std::vector<DeniedPath> out;
  for (auto& s : sensitive_path_list(home)) out.push_back({std::move(s.path), s.reason});
  return out;
}

}  // namespace paddock
