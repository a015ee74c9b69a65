// The Jail interface: backends by name, what each renders from one Policy (golden files for
// systemd-run and bubblewrap), secrets never in a command line, and real runs where the host
// can (bubblewrap here; systemd-run only where a user manager can be started).
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "paddock/jail_backend.h"
#include "paddock/profile.h"

namespace paddock::jail {
namespace {

// A policy written out by hand: nothing in it depends on the machine.
Policy fixed_policy() {
  Policy p;
  p.cwd = "/work/proj";
  p.home = "/home/u";
  p.user = "u";
  p.paths = {
      {"/usr", "/usr", Access::Read, {Origin::Kind::BuiltIn, "system default (read-only)"}, true, {}},
      {"/work/proj", ".", Access::ReadWrite, {Origin::Kind::Cwd, "jail j (copy workspace)"}, false, {}},
      {"/data", "/data", Access::Read, {Origin::Kind::Flag, "--read /data"}, false, {}},
  };
  p.denied = {{"/home/u/.ssh", "SSH keys and config"}};
  p.protected_paths = {{"/work/proj/.git/hooks", "git hooks run by git on the host", true}};
  p.env.set = {{"FOO", "bar"}};
  return p;
}

RunOpts fixed_opts() {
  RunOpts o;
  o.workspace.path = "/work/proj";
  o.workspace.home_dir = "/state/jails/j/home";
  o.command = {"claude", "-p", "fix it"};
  o.env = {"PADDOCK_JAIL=j"};
  o.secrets = {{"ANTHROPIC_API_KEY", "sk-secret-value"}};
  o.secrets_dir = "/run/user/1000";
  o.host_env = std::vector<std::string>{"PATH=/usr/bin:/bin", "HOME=/home/u", "TERM=xterm", "SECRET_TOKEN=host-only"};
  return o;
}

std::string render_text(const Command& c) {
  std::string out;
  for (const auto& a : c.argv) out += a + "\n";
  out += "--- env\n";
  std::vector<std::string> env = c.env;
  std::sort(env.begin(), env.end());
  for (const auto& e : env) out += e + "\n";
  out += "--- files\n";
  for (const auto& f : c.files) out += f.path + " (" + std::to_string(f.content.size()) + " bytes)\n";
  return out;
}

std::string golden(const std::string& name) {
  std::ifstream f(std::string(PADDOCK_SOURCE_DIR) + "/src/jail/testdata/" + name);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

void check_golden(const std::string& name, const std::string& got) {
  if (std::getenv("PADDOCK_UPDATE_GOLDEN")) {
    std::ofstream(std::string(PADDOCK_SOURCE_DIR) + "/src/jail/testdata/" + name) << got;
  }
  EXPECT_EQ(got, golden(name)) << "PADDOCK_UPDATE_GOLDEN=1 rewrites src/jail/testdata/" << name;
}

TEST(JailBackend, ByNameAndUnknownIsAnError) {
  for (const auto& n : backend_names()) {
    auto j = make_jail(n);
    ASSERT_TRUE(j.ok()) << n;
    EXPECT_EQ((*j)->name(), n);
  }
  auto bad = make_jail("docker");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("unknown backend \"docker\""), std::string::npos);
}

TEST(JailBackend, SystemdRunRendersThePolicyAsAUnit) {
  auto rec = std::make_shared<RecordingRunner>();
  auto j = make_jail("systemd-run", rec);
  ASSERT_TRUE(j.ok());
  auto c = (*j)->render(fixed_policy(), fixed_opts());
  ASSERT_TRUE(c.ok()) << c.error().describe();
  check_golden("systemd-run.golden", render_text(*c));
}

TEST(JailBackend, BubblewrapRendersThePolicyAsArguments) {
  auto j = make_jail("bubblewrap");
  ASSERT_TRUE(j.ok());
  Policy p = fixed_policy();
  p.denied.clear();           // rendering them depends on what exists on this machine
  p.protected_paths.clear();
  auto c = (*j)->render(p, fixed_opts());
  ASSERT_TRUE(c.ok()) << c.error().describe();
  check_golden("bubblewrap.golden", render_text(*c));
}

TEST(JailBackend, SecretsAreNeverOnACommandLineOrInAUnitProperty) {
  for (const char* b : {"bubblewrap", "systemd-run", "native"}) {
    auto rec = std::make_shared<RecordingRunner>();
    auto j = make_jail(b, rec);
    ASSERT_TRUE(j.ok());
    auto c = (*j)->render(fixed_policy(), fixed_opts());
    ASSERT_TRUE(c.ok()) << b;
    for (const auto& a : c->argv) EXPECT_EQ(a.find("sk-secret-value"), std::string::npos) << b << ": " << a;
    // A host variable the policy does not pass never reaches the command.
    for (const auto& e : c->env)
      if (std::string(b) != "systemd-run") EXPECT_EQ(e.find("host-only"), std::string::npos) << b;
  }
  // systemd-run: the secret goes to a 0600 file named by LoadCredential=, written by the runner.
  auto rec = std::make_shared<RecordingRunner>();
  auto j = make_jail("systemd-run", rec);
  ASSERT_TRUE((*j)->run(fixed_policy(), fixed_opts()).ok());
  ASSERT_EQ(rec->commands.size(), 1u);
  ASSERT_EQ(rec->commands[0].files.size(), 1u);
  EXPECT_EQ(rec->commands[0].files[0].content, "sk-secret-value");
  EXPECT_EQ(rec->commands[0].files[0].path, "/run/user/1000/paddock-credential.ANTHROPIC_API_KEY");
  // bubblewrap: in bwrap's environment, which only the same user can read.
  auto rec2 = std::make_shared<RecordingRunner>();
  auto b = make_jail("bubblewrap", rec2);
  ASSERT_TRUE((*b)->run(fixed_policy(), fixed_opts()).ok());
  const auto& env = rec2->commands.at(0).env;
  EXPECT_NE(std::find(env.begin(), env.end(), "ANTHROPIC_API_KEY=sk-secret-value"), env.end());
}

TEST(JailBackend, FilteredNetworkIsRefusedWhereItCannotBeEnforced) {
  Policy p = fixed_policy();
  p.network.mode = NetMode::Filtered;
  p.network.allow_domains = {"api.anthropic.com"};
  for (const char* b : {"bubblewrap", "systemd-run"}) {
    auto j = make_jail(b);
    auto c = (*j)->render(p, fixed_opts());
    ASSERT_FALSE(c.ok()) << b;
    EXPECT_NE(c.error().message.find("filter"), std::string::npos);
  }
}

TEST(JailBackend, TheGapsAreListed) {
  auto bw = make_jail("bubblewrap");
  auto sd = make_jail("systemd-run");
  auto nat = make_jail("native");
  auto has = [](const std::vector<std::string>& v, const char* w) {
    return std::any_of(v.begin(), v.end(), [&](const std::string& s) { return s.find(w) != std::string::npos; });
  };
  const Policy p = fixed_policy();
  EXPECT_TRUE(has((*bw)->missing_guarantees(p), "Landlock"));
  EXPECT_TRUE(has((*bw)->missing_guarantees(p), "seccomp"));
  EXPECT_TRUE(has((*bw)->missing_guarantees(p), "resource limits"));
  EXPECT_TRUE(has((*sd)->missing_guarantees(p), "egress filter"));
  EXPECT_TRUE((*nat)->missing_guarantees(p).empty());
}

// A real run of bubblewrap with a Policy built the way paddock run builds one.
class TempProject {
 public:
  TempProject() {
    char t[] = "/tmp/paddock-bwrap-test-XXXXXX";
    dir = mkdtemp(t);
  }
  ~TempProject() { std::system(("rm -rf '" + dir + "'").c_str()); }
  std::string dir;
};

TEST(JailBackend, BubblewrapRunsForReal) {
  if (access("/usr/bin/bwrap", X_OK) != 0) GTEST_SKIP() << "bwrap is not installed (Debian package bubblewrap; scripts/setup.sh installs it)";
  TempProject proj;
  auto ctx = HostContext::from_process();
  ASSERT_TRUE(ctx.ok());
  ctx->cwd = proj.dir;
  PolicyBuilder b(*ctx);
  auto prof = find_profile("default", *ctx);
  ASSERT_TRUE(prof.ok());
  ASSERT_TRUE(apply_profile(*prof, b, *ctx).ok());
  auto policy = b.build();
  ASSERT_TRUE(policy.ok()) << policy.error().describe();
  auto j = make_jail("bubblewrap");
  ASSERT_TRUE(j.ok());
  RunOpts o;
  o.workspace.path = proj.dir;
  o.command = {"/bin/sh", "-c",
               "echo written >out.txt; echo \"secret=$PADDOCK_TEST_SECRET\"; ls -A \"$HOME\" | wc -l; "
               "hostname; touch /usr/x 2>/dev/null && echo usr-writable || echo usr-readonly; "
               "ls /root/.ssh 2>/dev/null | wc -l"};
  o.secrets = {{"PADDOCK_TEST_SECRET", "s3"}};
  auto out = (*j)->run_capture(*policy, o);
  ASSERT_TRUE(out.ok()) << out.error().describe();
  EXPECT_EQ(*out, "secret=s3\n0\npaddock\nusr-readonly\n0\n");
  std::ifstream f(proj.dir + "/out.txt");
  std::string line;
  std::getline(f, line);
  EXPECT_EQ(line, "written");  // the workspace is writable, and it is the host's
}

// Issue 30: `--backend systemd-run` from su, sudo, cron or a container said only "Failed to connect
// to bus". Each way the host can lack a user manager is named, with what to do.
TEST(JailBackend, SystemdRunSaysWhyNoUserManagerCanBeReached) {
  SystemdHost none;
  auto no_systemd = systemd_user_manager(none);
  ASSERT_FALSE(no_systemd);
  EXPECT_NE(no_systemd.error().message.find("needs systemd as PID 1"), std::string::npos);
  EXPECT_NE(no_systemd.error().hint.find("--backend native"), std::string::npos);

  SystemdHost no_session{.systemd_running = true};
  auto unset = systemd_user_manager(no_session);
  ASSERT_FALSE(unset);
  EXPECT_NE(unset.error().message.find("XDG_RUNTIME_DIR is not set"), std::string::npos);
  EXPECT_NE(unset.error().hint.find("loginctl enable-linger"), std::string::npos);

  SystemdHost no_socket{.systemd_running = true, .runtime_dir = "/run/user/1000\x1b[31m"};
  auto missing = systemd_user_manager(no_socket);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("/bus does not exist"), std::string::npos);
  EXPECT_EQ(missing.error().message.find('\x1b'), std::string::npos) << "the variable's value is printed escaped";

  EXPECT_TRUE(systemd_user_manager({.systemd_running = true, .runtime_dir = "/run/user/1000", .runtime_bus_exists = true}));
  EXPECT_TRUE(systemd_user_manager({.systemd_running = true, .bus_address = "unix:path=/run/user/1000/bus"}));
}

// The real backend checks before it starts systemd-run; a recording runner runs nothing and checks nothing.
TEST(JailBackend, SystemdRunRefusesBeforeRunningWithoutAUserManager) {
  const char* saved_dbus = std::getenv("DBUS_SESSION_BUS_ADDRESS");
  const char* saved_xdg = std::getenv("XDG_RUNTIME_DIR");
  std::string dbus = saved_dbus ? saved_dbus : "", xdg = saved_xdg ? saved_xdg : "";
  ::unsetenv("DBUS_SESSION_BUS_ADDRESS");
  ::setenv("XDG_RUNTIME_DIR", "/nonexistent-paddock-test", 1);
  auto j = make_jail("systemd-run");
  ASSERT_TRUE(j);
  Policy p = fixed_policy();
  p.denied.clear();
  p.protected_paths.clear();
  RunOpts o = fixed_opts();
  o.command = {"/bin/true"};
  auto r = (*j)->run(p, o);
  if (saved_dbus) ::setenv("DBUS_SESSION_BUS_ADDRESS", dbus.c_str(), 1);
  if (saved_xdg) ::setenv("XDG_RUNTIME_DIR", xdg.c_str(), 1); else ::unsetenv("XDG_RUNTIME_DIR");
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().message.find("needs systemd as PID 1") != std::string::npos ||
              r.error().message.find("/nonexistent-paddock-test/bus does not exist") != std::string::npos)
      << r.error().message;

  auto rec = std::make_shared<RecordingRunner>();
  auto recorded = make_jail("systemd-run", rec);
  ASSERT_TRUE(recorded);
  EXPECT_TRUE((*recorded)->run(p, o));
  EXPECT_EQ(rec->commands.size(), 1u);
}

TEST(JailBackend, SystemdRunRunsWhereAUserManagerCanBeStarted) {
  struct stat st;
  if (stat("/run/systemd/system", &st) != 0)
    GTEST_SKIP() << "systemd is not PID 1 here (/run/systemd/system is missing), so no user manager can be "
                    "started for systemd-run --user; the rendering is tested against golden files";
  if (std::system("systemctl --user is-system-running >/dev/null 2>&1") != 0 &&
      std::system("systemctl --user show-environment >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "no user manager is running for this user (systemctl --user show-environment fails)";
  auto j = make_jail("systemd-run");
  Policy p = fixed_policy();
  p.paths.clear();
  p.denied.clear();
  p.protected_paths.clear();
  char cwd[4096];
  ASSERT_NE(getcwd(cwd, sizeof(cwd)), nullptr);
  p.cwd = cwd;
  p.home = std::getenv("HOME") ? std::getenv("HOME") : "/root";
  RunOpts o;
  o.workspace.path = cwd;
  o.command = {"/bin/sh", "-c", "echo \"$PADDOCK_TEST_SECRET\""};
  o.secrets = {{"PADDOCK_TEST_SECRET", "s3"}};
  auto out = (*j)->run_capture(p, o);
  ASSERT_TRUE(out.ok()) << out.error().describe();
  EXPECT_EQ(*out, "s3\n");
}

}  // namespace
}  // namespace paddock::jail
