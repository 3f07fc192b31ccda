// The metadata presets through the iofab binary: a bad stonewall is refused naming the field and the form
// expected (exit 2), with nothing written to the target.
#include <gtest/gtest.h>

#include <filesystem>

#include "test_util.h"

namespace iofab::testing {
namespace {

TEST(MetadataCli, ABadStonewallExitsTwoNamingTheFieldAndWritesNothing) {
  TempDir target("/dev/shm");
  for (const char* bad : {"soon", "-5s", "[1]"}) {
    for (const char* preset : {"mdtest-easy", "mdtest-hard"}) {
      const CommandResult r = run_iofab({"run", std::string("io500-") + preset, "--target", target.path(),
                                         "--set", std::string("phases.") + preset + ".stonewall=" + bad});
      EXPECT_EQ(r.exit_code, 2) << preset << " " << bad << ": " << r.err;
      EXPECT_NE(r.err.find("phases[0].stonewall: expected a duration like \"500ms\""), std::string::npos)
          << preset << " " << bad << ": " << r.err;
      EXPECT_TRUE(std::filesystem::is_empty(target.path())) << preset << " " << bad;
    }
  }
}

}  // namespace
}  // namespace iofab::testing
