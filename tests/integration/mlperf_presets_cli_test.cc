// The shipped MLPerf Storage training presets: each validates as a built-in suite, and a bad
// override of the new loader params stops the run with exit 2 naming the field.
#include <gtest/gtest.h>

#include "test_util.h"

namespace iofab::testing {
namespace {

TEST(MlperfPresetsCli, EveryTrainingPresetValidates) {
  for (const char* name : {"mlperf-unet3d", "mlperf-resnet50", "mlperf-cosmoflow", "mlperf-retinanet",
                           "mlperf-flux", "mlperf-dlrm"}) {
    const CommandResult r = run_iofab({"validate", name});
    EXPECT_EQ(r.exit_code, 0) << name << ": " << r.err;
    EXPECT_NE(r.out.find("\"mlperf\": true"), std::string::npos) << name;
  }
}

TEST(MlperfPresetsCli, ABadOverrideNamesTheFieldAndExits2) {
  CommandResult r =
      run_iofab({"validate", "mlperf-cosmoflow", "--set", "phases.cosmoflow.file_shuffle=sometimes"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("phases[0].file_shuffle"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("random"), std::string::npos) << r.err;  // the allowed forms are listed
  r = run_iofab({"validate", "mlperf-resnet50", "--set", "phases.resnet50.reader=tfrecord"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("phases[0].reader"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace iofab::testing
