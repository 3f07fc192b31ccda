// The shipped MLPerf Storage training presets: each validates as a built-in suite, and a bad
// override of the new loader params stops the run with exit 2 naming the field.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

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

TEST(MlperfPresetsCli, EveryCheckpointingPresetValidatesAndScaleSetsEveryCheckpointPhase) {
  for (const char* name : {"mlperf-llama3-8b", "mlperf-llama3-70b", "mlperf-llama3-405b", "mlperf-llama3-1t"}) {
    const CommandResult r = run_iofab({"validate", name});
    EXPECT_EQ(r.exit_code, 0) << name << ": " << r.err;
    EXPECT_NE(r.out.find("\"steps\": 10"), std::string::npos) << name;
  }
  // The 8B cycle, 10 writes and 10 reads, at 1/20000 of its size (5.4 MB a checkpoint).
  TempDir dir("/dev/shm");
  const std::string report = dir.path() + "/r.json";
  CommandResult r = run_iofab({"run", "mlperf-llama3-8b", "--scale", "20000", "--target", dir.path(), "--out", report,
                               "-q", "--set", "defaults.engine=psync"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(read_file(report));
  EXPECT_EQ(j["phases"][0]["params"]["scale"], 20000);
  const nlohmann::json& w = j["phases"][0]["result"];
  const nlohmann::json& rd = j["phases"][1]["result"];
  EXPECT_EQ(w["metrics"]["checkpoints"], 10);
  EXPECT_EQ(rd["metrics"]["checkpoints_read"], 10);
  EXPECT_EQ(rd["metrics"]["read_bytes"], 10 * w["metrics"]["checkpoint_bytes"].get<double>());
  EXPECT_GT(w["metrics"]["mlperf_save_gib_per_s"].get<double>(), 0);
  EXPECT_GT(rd["metrics"]["mlperf_load_gib_per_s"].get<double>(), 0);
  // The console's figures are the ones the suite names: MLPerf's first.
  EXPECT_EQ(w["details"]["headline"][0], "mlperf_save_seconds");
  // A suite without a checkpoint phase has nothing to scale.
  r = run_iofab({"run", "mlperf-resnet50", "--scale", "10", "--target", dir.path()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--scale"), std::string::npos) << r.err;
}

TEST(MlperfPresetsCli, AHeadlineNamesMetricsOfItsKind) {
  TempDir dir("/dev/shm");
  write_file(dir.path() + "/s.json", R"({"phases": [{"kind": "checkpoint", "headline": ["read_bytes_per_s"]}]})");
  const CommandResult r = run_iofab({"validate", dir.path() + "/s.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("phases[0].headline[0]"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("checkpoint"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace iofab::testing
