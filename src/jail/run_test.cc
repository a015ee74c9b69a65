// Unit tests of run_request (paddock/run.h): the requests it refuses before any sandbox exists,
// with the exit code and the message the command line prints. The runs themselves are the
// integration tests' (tests/integration) and the jail suite's (tests/jail).
#include "paddock/run.h"

#include <gtest/gtest.h>

namespace paddock {
namespace {

RunRequest request() {
  RunRequest req;
  req.command = {"/bin/true"};
  req.say = [](const std::vector<std::string>&) {};
  return req;
}

void expect_refused(const RunOutcome& o, int code, const std::string& says) {
  ASSERT_TRUE(o.error.has_value()) << "not refused";
  EXPECT_EQ(o.exit_code, code);
  EXPECT_NE(o.error->describe().find(says), std::string::npos) << o.error->describe();
  EXPECT_FALSE(o.result.has_value());
}

TEST(RunRequest, TheConfigureStepsErrorIsTheRequestsWithExit2) {
  RunRequest req = request();
  bool asked = false;
  req.configure = [&](PolicyBuilder&, const ConfigureContext& c) -> Result<void> {
    asked = true;
    EXPECT_TRUE(c.jail_profile.empty());  // no jail
    return make_error("unknown key \"alow\"", "profile.toml:1:1");
  };
  RunOutcome o = run_request(std::move(req));
  EXPECT_TRUE(asked);
  expect_refused(o, 2, "profile.toml:1:1: unknown key \"alow\"");
  EXPECT_FALSE(o.policy.has_value());
}

TEST(RunRequest, AnotherBackendRefusesWhatOnlyTheNativeOneDoes) {
  for (int which = 0; which < 5; ++which) {
    RunRequest req = request();
    req.backend = "bubblewrap";
    if (which == 0) req.exec = true;
    if (which == 1) req.net_log = "/tmp/net.log";
    if (which == 2) req.report = "/tmp/report.json";
    if (which == 3) req.undo = true;
    if (which == 4) req.denials = "/tmp/denials.jsonl";
    expect_refused(run_request(std::move(req)), 2,
                   "--exec, --net-log, --denials, --report and --undo need the native backend");
  }
}

TEST(RunRequest, AnUnknownBackendIsRefused) {
  RunRequest req = request();
  req.backend = "docker";
  expect_refused(run_request(std::move(req)), 2, "unknown backend \"docker\"");
}

TEST(RunRequest, ANetLogWithoutAFilteredNetworkIsRefused) {
  RunRequest req = request();
  req.net_log = "/tmp/paddock-run-test-net.log";
  expect_refused(run_request(std::move(req)), 2, "the network is not filtered");
}

TEST(RunRequest, AReportInADirectoryThatIsNotThereIsRefusedBeforeTheRun) {
  RunRequest req = request();
  req.report = "/nonexistent-paddock-dir/report.json";
  expect_refused(run_request(std::move(req)), 2, "--report /nonexistent-paddock-dir/report.json");
}

TEST(RunRequest, ExecWithUndoIsRefused) {
  RunRequest req = request();
  req.exec = true;
  req.undo = true;
  bool snapshot = false;
  req.wrapper.before = [&](const UndoSettings&, const HostContext&, Policy&, RunOptions&) { snapshot = true; };
  expect_refused(run_request(std::move(req)), 2, "--exec removes it");
  EXPECT_FALSE(snapshot);
}

// Fail closed: undo asked for and nothing to take its snapshots is refused, never a run the user
// believes they can take back.
TEST(RunRequest, UndoWithoutAWrapperIsRefused) {
  RunRequest req = request();
  req.undo = true;
  expect_refused(run_request(std::move(req)), 2, "nothing takes its snapshots");
}

TEST(RunRequest, TheProfileStateThatCannotBeCreatedIsTheRequestsErrorNamingTheProfile) {
  RunRequest req = request();
  req.configure = [](PolicyBuilder& b, const ConfigureContext&) -> Result<void> {
    // A directory outside HOME: make_dir_under refuses it.
    b.create_dir("/proc/paddock-run-test", {Origin::Kind::Profile, "test.toml"});
    return {};
  };
  RunOutcome o = run_request(std::move(req));
  expect_refused(o, 2, "test.toml: ");
}

TEST(RunRequest, AProjectIsTheCwdTheConfigureStepSeesWithTheJailsProfile) {
  RunRequest req = request();
  req.project = RunProject{};
  req.project->dir = "/tmp";
  req.project->origin = "jail t (copy workspace)";
  req.project->profile = "codex";
  std::string cwd, profile;
  req.configure = [&](PolicyBuilder&, const ConfigureContext& c) -> Result<void> {
    cwd = c.host.cwd;
    profile = std::string(c.jail_profile);
    return make_error("stop here");
  };
  expect_refused(run_request(std::move(req)), 2, "stop here");
  EXPECT_EQ(cwd, "/tmp");
  EXPECT_EQ(profile, "codex");
}

}  // namespace
}  // namespace paddock
