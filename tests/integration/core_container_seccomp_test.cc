// Kernel tests of paddock under a container runtime's seccomp profile, without the container:
// `paddock-probe refuse` runs paddock under a filter answering one system call with EPERM, as
// podman's default profile does for sethostname and moby's for the rest (docs/scale.md#containers).
// Each call the sandbox's setup needs, refused: doctor names it and promises the fallback, the
// run falls back and says so (its secrets still hidden), and --require-namespaces refuses. A call
// refused must never leave a run that looks isolated but is not (mount_setattr: read-only binds
// whose submounts stay writable).
#include <gtest/gtest.h>

#include "helpers/test_util.h"

namespace ktest {
namespace {

struct Refused {
  const char* call;    // what paddock-probe refuse takes
  const char* doctor;  // how doctor names it
};
constexpr Refused kRefused[] = {
    {"sethostname", "sethostname"},     {"mount_setattr", "mount_setattr"},
    {"pivot_root", "pivot_root"},       {"umount2", "umount2"},
    {"unshare", "unshare(CLONE_NEWCGROUP)"},
};

Proc refused_paddock(const World& w, const char* call, const std::vector<std::string>& args) {
  std::vector<std::string> argv{probe_bin(), "refuse", call, paddock_bin()};
  argv.insert(argv.end(), args.begin(), args.end());
  return run(argv, w.opts());
}

TEST(CoreContainerSeccomp, EachRefusedSetupCallFallsBackAnnounced) {
  KTEST_REQUIRE_BINARIES();
  if (!user_namespaces_work()) GTEST_SKIP() << "user namespaces do not work here: nothing to fall back from";
  World w;
  // Unfiltered, the same run has namespaces and no notice: the notices below come from the filter.
  auto plain = w.probe_run({"read", w.ssh_key});
  ASSERT_FALSE(contains(plain.err, "user namespaces unavailable")) << describe(plain);
  for (const Refused& r : kRefused) {
    SCOPED_TRACE(r.call);
    auto doctor = refused_paddock(w, r.call, {"doctor"});
    EXPECT_TRUE(contains(doctor.out, std::string("user namespace created but ") + r.doctor + " is refused"))
        << describe(doctor);
    EXPECT_TRUE(contains(doctor.out, "`paddock run` will use: landlock")) << describe(doctor);

    auto secret = refused_paddock(w, r.call, {"run", "--", w.probe, "read", w.ssh_key});
    EXPECT_EQ(secret.code, 1) << describe(secret);
    EXPECT_FALSE(contains(secret.out, World::kSecret)) << describe(secret);
    EXPECT_TRUE(contains(secret.err, "user namespaces unavailable: running with Landlock + seccomp only"))
        << describe(secret);

    auto write = refused_paddock(w, r.call, {"run", "--", w.probe, "write", w.project + "/written"});
    EXPECT_EQ(write.code, 0) << describe(write);
    EXPECT_TRUE(exists(w.project + "/written")) << describe(write);
    remove_tree(w.project + "/written");

    auto required = refused_paddock(w, r.call, {"run", "--require-namespaces", "--", w.probe, "write", w.project + "/never"});
    EXPECT_NE(required.code, 0) << describe(required);
    EXPECT_FALSE(exists(w.project + "/never")) << describe(required);
    EXPECT_FALSE(contains(required.err, "user namespaces unavailable: running")) << describe(required);
  }
}

}  // namespace
}  // namespace ktest
