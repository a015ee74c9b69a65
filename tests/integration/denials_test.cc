// Issue 28 part 1: exact denials. A call the seccomp denylist refuses is named, once per entry,
// with a count, the first process and the same errno as before; in the report, live in
// --denials FILE, and in the footer instead of "may be due to". Real sandboxes, root and
// unprivileged.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "helpers/test_util.h"

namespace ktest {
namespace {

int count_of(const std::string& text, const std::string& part) {
  int n = 0;
  for (const auto& l : split_lines(text)) n += contains(l, part) ? 1 : 0;
  return n;
}

const nlohmann::json* find_denial(const nlohmann::json& report, const std::string& what) {
  for (const auto& d : report["denials"])
    if (d["what"] == what) return &d;
  return nullptr;
}

TEST(Denials, DenylistedSyscallIsNamedWithItsCount) {
  KTEST_REQUIRE_BINARIES();
  if (!user_namespaces_work()) GTEST_SKIP() << "counted with namespaces only (the fallback's broker holds the listener)";
  World w;
  const std::string report = w.root / "report.json";
  const std::string live = w.root / "denials.jsonl";
  const std::string probe = w.probe;
  auto r = w.paddock({"run", "--report", report, "--denials", live, "--", "/bin/sh", "-c",
                      probe + " unshare-user; " + probe + " unshare-user; " + probe + " unshare-user; " + probe +
                          " bpf; exit 1"});
  EXPECT_EQ(r.code, 1) << describe(r);
  // The call still fails as the list says (the supervisor answers with the entry's errno).
  EXPECT_EQ(count_of(r.out, "DENIED EPERM unshare(CLONE_NEWUSER)"), 3) << describe(r);
  EXPECT_TRUE(contains(r.out, "DENIED EPERM bpf")) << describe(r);
  auto j = nlohmann::json::parse(read_file(report), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << read_file(report);
  const nlohmann::json* u = find_denial(j, "unshare(CLONE_NEWUSER)");
  ASSERT_NE(u, nullptr) << j["denials"].dump(2);
  EXPECT_EQ((*u)["layer"], "seccomp");
  EXPECT_EQ((*u)["op"], "syscall");
  EXPECT_EQ((*u)["count"], 3) << u->dump();
  EXPECT_EQ((*u)["comm"], "paddock-probe") << u->dump();
  EXPECT_GT((*u)["pid"].get<int>(), 0) << u->dump();
  EXPECT_TRUE((*u)["allow_with"].is_null()) << u->dump();
  EXPECT_EQ((*u)["rule"].get<std::string>().rfind("denylist (EPERM): ", 0), 0u) << u->dump();
  const nlohmann::json* b = find_denial(j, "bpf");
  ASSERT_NE(b, nullptr) << j["denials"].dump(2);
  EXPECT_EQ((*b)["count"], 1);
  // Live: the first time and each power of two, as JSON lines.
  auto lines = split_lines(read_file(live));
  int unshare_lines = 0;
  for (const auto& l : lines) {
    auto d = nlohmann::json::parse(l, nullptr, false);
    ASSERT_FALSE(d.is_discarded()) << l;
    if (d["what"] == "unshare(CLONE_NEWUSER)") EXPECT_EQ(d["count"], ++unshare_lines) << l;
  }
  EXPECT_EQ(unshare_lines, 2) << read_file(live);
  // The footer: the exact line, no guess.
  EXPECT_TRUE(contains(r.err, "During the run the sandbox refused:")) << describe(r);
  EXPECT_TRUE(contains(r.err, "refused syscall unshare(CLONE_NEWUSER) [seccomp: denylist (EPERM): ")) << describe(r);
  EXPECT_TRUE(contains(r.err, "x3, first by pid ")) << describe(r);
  EXPECT_TRUE(contains(r.err, "(paddock-probe); no flag allows it")) << describe(r);
  EXPECT_FALSE(contains(r.err, "may be due to")) << describe(r);
}

// From inside: `paddock why --self --denials` reads the session's record, which the sandbox can
// read but not change (a read-only bind: no new door out, nothing to write policy through).
TEST(Denials, TheSandboxReadsItsOwnRecordAndCannotWriteIt) {
  KTEST_REQUIRE_BINARIES();
  if (!user_namespaces_work()) GTEST_SKIP() << "recorded with namespaces only";
  World w;
  const std::string bindir = paddock_bin().substr(0, paddock_bin().rfind('/'));
  auto r = w.sh(w.probe + " unshare-user; " + w.probe + " unshare-user; " + paddock_bin() +
                    " why --self --denials --json; echo forged >> \"$PADDOCK_DENIALS\"; echo write=$?; " +
                    "chmod 666 \"$PADDOCK_DENIALS\"; echo chmod=$?; " + paddock_bin() + " why --self --denials",
                {"--read", bindir});
  EXPECT_EQ(r.code, 0) << describe(r);
  auto start = r.out.find('[');
  auto end = r.out.find("\n]");
  ASSERT_NE(start, std::string::npos) << describe(r);
  ASSERT_NE(end, std::string::npos) << describe(r);
  auto j = nlohmann::json::parse(r.out.substr(start, end + 2 - start), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << describe(r);
  nlohmann::json record;
  record["denials"] = j;
  const nlohmann::json* u = find_denial(record, "unshare(CLONE_NEWUSER)");
  ASSERT_NE(u, nullptr) << describe(r);
  EXPECT_EQ((*u)["count"], 2) << describe(r);
  EXPECT_FALSE(contains(r.out, "write=0")) << describe(r);
  EXPECT_FALSE(contains(r.out, "chmod=0")) << describe(r);
  EXPECT_FALSE(contains(r.out, "forged")) << describe(r);
  EXPECT_TRUE(contains(r.out, "refused syscall unshare(CLONE_NEWUSER) [seccomp: denylist (EPERM): ")) << describe(r);
}

// Nothing refused, nothing recorded: the footer keeps its guess and the report's list is empty.
TEST(Denials, NothingRefusedKeepsTheGuess) {
  KTEST_REQUIRE_BINARIES();
  World w;
  const std::string report = w.root / "report.json";
  auto r = w.paddock({"run", "--report", report, "--", "/bin/sh", "-c", "exit 1"});
  EXPECT_EQ(r.code, 1) << describe(r);
  auto j = nlohmann::json::parse(read_file(report), nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_TRUE(j["denials"].is_array());
  EXPECT_TRUE(j["denials"].empty()) << j["denials"].dump(2);
  EXPECT_TRUE(contains(r.err, "may be due to")) << describe(r);
}

// The sandbox names its process: a comm with a terminal escape reaches the footer escaped.
TEST(Denials, SandboxChosenCommIsEscapedInTheFooter) {
  KTEST_REQUIRE_BINARIES();
  if (!user_namespaces_work()) GTEST_SKIP() << "counted with namespaces only";
  World w;
  // bash's exec -a does not change comm; a copy of the probe under a hostile name does.
  const std::string evil = w.project + "/ev\x1b[2Jil";
  auto r = w.paddock({"run", "--", "/bin/sh", "-c",
                      "cp " + w.probe + " '" + evil + "' && '" + evil + "' unshare-user; exit 1"});
  EXPECT_EQ(r.code, 1) << describe(r);
  EXPECT_FALSE(contains(r.err, "\x1b[2J")) << describe(r);
  EXPECT_TRUE(contains(r.err, "(ev\\x1b[2Jil)")) << describe(r);
}

}  // namespace
}  // namespace ktest
