// The AppArmor story doctor tells, from faked host files (this machine has no AppArmor).
#include "engine/apparmor.h"

#include <gtest/gtest.h>

namespace paddock::engine {
namespace {

AppArmorInputs ubuntu(const std::string& label) {
  AppArmorInputs in;
  in.enabled = true;
  in.restrict_userns = "1\n";
  in.loaded_profiles = "/usr/bin/man (enforce)\nunprivileged_userns (enforce)\n";
  in.self_label = label;
  in.self_path = "/usr/local/bin/paddock";
  return in;
}

const char* kProfile =
    "abi <abi/4.0>,\ninclude <tunables/global>\n\nprofile paddock /usr/local/bin/paddock flags=(unconfined) {\n"
    "  userns,\n  include if exists <local/paddock>\n}\n";

TEST(AppArmor, NotEnabledSaysSoAndNeedsNothing) {
  AppArmorInputs in;
  AppArmorStatus s = apparmor_status(in);
  EXPECT_FALSE(s.restricts_userns);
  EXPECT_EQ(s.detail, "not enabled");
  EXPECT_EQ(s.fix, "");
}

TEST(AppArmor, EnabledWithoutTheRestrictionNeedsNothing) {
  AppArmorInputs in = ubuntu("unconfined\n");
  in.restrict_userns = "0\n";
  EXPECT_EQ(apparmor_status(in).fix, "");
  in.restrict_userns.reset();  // a kernel without the sysctl (Debian 12) does not restrict at all
  AppArmorStatus s = apparmor_status(in);
  EXPECT_FALSE(s.restricts_userns);
  EXPECT_EQ(s.fix, "");
  EXPECT_EQ(s.detail, "enabled; does not restrict unprivileged user namespaces");
}

TEST(AppArmor, RestrictedAndNotInstalledPointsAtTheInstallScript) {
  AppArmorStatus s = apparmor_status(ubuntu("unconfined\n"));
  EXPECT_TRUE(s.restricts_userns);
  EXPECT_FALSE(s.profile_applies);
  EXPECT_EQ(s.fix, "sudo scripts/install.sh --prefix /usr/local/bin");
  EXPECT_NE(s.detail.find("paddock's profile is not installed"), std::string::npos) << s.detail;
  EXPECT_NE(s.detail.find("/usr/local/bin/paddock"), std::string::npos) << s.detail;
}

TEST(AppArmor, InstalledButNotLoadedPointsAtTheParser) {
  AppArmorInputs in = ubuntu("unconfined\n");
  in.installed_profile = kProfile;
  AppArmorStatus s = apparmor_status(in);
  EXPECT_EQ(s.fix, "sudo apparmor_parser -r /etc/apparmor.d/paddock");
  EXPECT_NE(s.detail.find("installed but not loaded"), std::string::npos) << s.detail;
}

TEST(AppArmor, LoadedButNotApplyingIsReloaded) {
  AppArmorInputs in = ubuntu("unconfined\n");
  in.installed_profile = kProfile;
  in.loaded_profiles = *in.loaded_profiles + "paddock (unconfined)\n";
  AppArmorStatus s = apparmor_status(in);
  EXPECT_EQ(s.fix, "sudo apparmor_parser -r /etc/apparmor.d/paddock");
  EXPECT_NE(s.detail.find("loaded but does not apply"), std::string::npos) << s.detail;
}

TEST(AppArmor, ProfileForAnotherPathMeansInstallingForThisOne) {
  AppArmorInputs in = ubuntu("unconfined\n");
  in.self_path = "/opt/paddock/bin/paddock";
  in.installed_profile = kProfile;  // attaches to /usr/local/bin/paddock
  AppArmorStatus s = apparmor_status(in);
  EXPECT_EQ(s.fix, "sudo scripts/install.sh --prefix /opt/paddock/bin");
  EXPECT_NE(s.detail.find("attaches to another path"), std::string::npos) << s.detail;
}

TEST(AppArmor, RunningUnderItsProfileNeedsNothing) {
  AppArmorInputs in = ubuntu("paddock (unconfined)\n");
  in.installed_profile = kProfile;
  in.loaded_profiles = "paddock (unconfined)\n";
  AppArmorStatus s = apparmor_status(in);
  EXPECT_TRUE(s.restricts_userns);
  EXPECT_TRUE(s.profile_applies);
  EXPECT_EQ(s.fix, "");
  // A profile merely named like it (another program's label) is not ours.
  EXPECT_FALSE(apparmor_status(ubuntu("paddockx (enforce)")).profile_applies);
}

}  // namespace
}  // namespace paddock::engine
