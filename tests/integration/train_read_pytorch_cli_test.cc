// train_read with loader: pytorch through the iofab binary (both figures and their ratio in the report and
// on the console; its params refused naming the field), and `iofab calibrate` where /usr/bin/python3 has
// torch.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "test_util.h"
#include "workloads/calibration/calibration.h"
#include "workloads/calibration/loader_costs.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A calibration file of the built-in costs, so the run does not depend on the machine's own file.
std::string write_calibration(const std::string& dir) {
  Calibration c;
  c.created = "2026-12-07T05:00:00Z";
  c.torch = "1.13.1";
  c.sections[std::string(kLoaderSection)] = builtin_loader_calibration().to_json();
  const std::string path = dir + "/calibration.json";
  write_file(path, c.to_json().dump(2));
  return path;
}

TEST(TrainReadPytorchCli, ReportAndConsoleShowTheProfileTheCeilingAndTheRatio) {
  TempDir dir("/dev/shm");
  const std::string cal = write_calibration(dir.path());
  write_file(
      dir.path() + "/s.json", R"({"phases": [{"kind": "train_read", "layout": "files", "num_samples": 256,
      "sample_size": "16KiB", "batch_size": 16, "epochs": 2, "loader": "pytorch", "num_workers": 2,
      "calibration": ")" + cal + R"("}]})");
  const std::string report = dir.path() + "/r.json";
  CommandResult r =
      run_iofab({"run", dir.path() + "/s.json", "--target", dir.path() + "/t", "--out", report});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json j = json::parse(read_file(report));
  const json& res = j["phases"][0]["result"];
  const json& m = res["metrics"];
  ASSERT_GT(m["samples_per_s"].get<double>(), 0);
  ASSERT_GT(m["storage_ceiling_samples_per_s"].get<double>(), 0);
  EXPECT_NEAR(m["framework_fraction"].get<double>(),
              m["samples_per_s"].get<double>() / m["storage_ceiling_samples_per_s"].get<double>(), 1e-9);
  EXPECT_EQ(res["details"]["calibration"]["source"], cal);
  EXPECT_EQ(res["details"]["calibration"]["torch"], "1.13.1");
  EXPECT_EQ(res["details"]["calibration"]["created"], "2026-12-07T05:00:00Z");
  EXPECT_EQ(res["details"]["loader_profile"]["samples"], 512);
  EXPECT_TRUE(has(r.out, "of the storage ceiling")) << r.out;
}

TEST(TrainReadPytorchCli, BadParamsExitTwoNamingThePath) {
  TempDir dir("/dev/shm");
  write_file(dir.path() + "/bad.json", R"({"format": "iofab-calibration", "version": 3})");
  const std::string files = R"("layout": "files", "num_samples": 64, )";
  struct Case {
    std::string phase;
    std::string says;
  };
  for (const Case& c : {
           Case{files + R"("loader": "tf")", "phases[0].loader: expected one of \"native\" \"pytorch\""},
           Case{files + R"("num_workers": 2)", "phases[0].num_workers: applies only to loader: pytorch"},
           Case{files + R"("loader": "pytorch", "num_workers": -1)", "phases[0].num_workers: expected"},
           Case{files + R"("loader": "pytorch", "prefetch_factor": 0)",
                "phases[0].prefetch_factor: expected"},
           Case{files + R"("loader": "pytorch", "num_workers": 0, "prefetch_factor": 4)",
                "phases[0].prefetch_factor: needs num_workers >= 1"},
           Case{files + R"("loader": "pytorch", "num_workers": 0, "persistent_workers": true)",
                "phases[0].persistent_workers: needs num_workers >= 1"},
           Case{R"("layout": "shards", "num_samples": 64, "loader": "pytorch")",
                "phases[0].layout: must be files with loader: pytorch"},
           Case{files + R"("loader": "pytorch", "direct": true)", "phases[0].direct: must be false"},
           Case{files + R"("loader": "pytorch", "calibration": ")" + dir.path() + R"(/bad.json")",
                "phases[0].calibration: calibration file " + dir.path() + "/bad.json: version: expected 1"},
       }) {
    write_file(dir.path() + "/s.json", R"({"phases": [{"kind": "train_read", )" + c.phase + "}]}");
    CommandResult r = run_iofab({"run", dir.path() + "/s.json", "--target", dir.path() + "/t"});
    EXPECT_EQ(r.exit_code, 2) << c.phase << "\n" << r.err;
    EXPECT_TRUE(has(r.err, c.says)) << c.phase << "\n" << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/t"));
}

bool scratch_left(const std::string& dir) {
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (has(e.path().filename().string(), "iofab-calibrate-")) return true;
  }
  return false;
}

TEST(CalibrateCli, NoPythonWithTorchExitsTwoLeavingNothing) {
  TempDir dir("/dev/shm");
  CommandResult r = run_iofab({"calibrate", "--out", dir.path() + "/c.json", "--dir", dir.path(), "--python",
                               dir.path() + "/no-python"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "calibrate needs a python3 with torch")) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/c.json"));
  EXPECT_FALSE(scratch_left(dir.path()));
}

TEST(CalibrateCli, WritesACalibrationThePhaseReads) {
  const CommandResult torch = run_command({"/usr/bin/python3", "-c", "import torch"});
  if (torch.exit_code != 0) GTEST_SKIP() << "/usr/bin/python3 has no torch (apt-get install python3-torch)";
  TempDir dir("/dev/shm");
  const std::string out = dir.path() + "/cfg/c.json";
  CommandResult r =
      run_iofab({"calibrate", "--out", out, "--dir", dir.path(), "--files", "16", "--rounds", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_FALSE(scratch_left(dir.path())) << "the scratch files are removed";
  Calibration c;
  const Status s = load_calibration_file(out, &c);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_FALSE(c.torch.empty());
  EXPECT_TRUE(has(c.python, "/usr/bin/python3"));
  LoaderCalibration lc;
  bool from_file = false;
  ASSERT_TRUE(loader_calibration(c, &lc, &from_file).ok());
  EXPECT_TRUE(from_file);
  EXPECT_GT(lc.python.sample_s + lc.python.byte_s, 0) << "the real DataLoader costs something per sample";
  EXPECT_TRUE(has(r.out, "wrote " + out)) << r.out;
}

}  // namespace
}  // namespace iofab::testing
