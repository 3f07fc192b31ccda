// `iofab run` of a suite with rdma phases on one rank: on a machine without
// an RDMA device each skips with the reason and the run passes (exit 0); the
// shipped fabric suite validates.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

const char* kSuite = R"({
  "name": "rdma-test",
  "phases": [
    {"kind": "rdma", "name": "verbs", "max_bytes": "64KiB", "iters": 10},
    {"kind": "rdma", "name": "verbs_gpu", "gpu_buffers": true, "ops": "write", "max_bytes": "64KiB"}
  ]
})";

bool no_rdma_device() {
  std::error_code ec;
  return !std::filesystem::exists("/sys/class/infiniband", ec);
}

TEST(RdmaCli, SingleRankSkipsWithTheReasonAndPasses) {
  TempDir dir("/dev/shm");
  write_file(dir.path() + "/suite.json", kSuite);
  const std::string report = dir.path() + "/r.json";
  CommandResult r = run_iofab(
      {"run", dir.path() + "/suite.json", "--target", dir.path() + "/t", "--out", report, "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json j = json::parse(read_file(report), nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  ASSERT_EQ(j["phases"].size(), 2u);
  for (const auto& p : j["phases"]) {
    EXPECT_EQ(p["status"], "skipped") << p.dump(1);
    const std::string reason = p["reason"];
    if (no_rdma_device()) {
#ifdef IOFAB_HAVE_IBVERBS
      EXPECT_EQ(reason, "no RDMA device (no /sys/class/infiniband entries)");
#else
      EXPECT_EQ(reason, "built without libibverbs");
#endif
    } else {
      EXPECT_FALSE(reason.empty());
    }
  }
  EXPECT_EQ(j["phases"][1]["params"]["memory"], "cuda");
  EXPECT_EQ(j["verdict"]["status"], "passed");
}

TEST(RdmaCli, ACheckOnASkippedPhaseFailsTheRun) {
  TempDir dir("/dev/shm");
  write_file(dir.path() + "/suite.json", R"({"phases": [{"kind": "rdma", "name": "verbs",
      "checks": [{"metric": "write_bytes_per_s.max", "op": ">=", "value": "1GB/s"}]}]})");
  const std::string report = dir.path() + "/r.json";
  CommandResult r = run_iofab(
      {"run", dir.path() + "/suite.json", "--target", dir.path() + "/t", "--out", report, "--quiet"});
  // One rank never measures: an acceptance check that cannot be judged must not pass.
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const json j = json::parse(read_file(report), nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["phases"][0]["status"], "skipped");
  EXPECT_EQ(j["verdict"]["status"], "failed");
}

TEST(RdmaCli, BadParamsNameThePathAndExitTwo) {
  TempDir dir("/dev/shm");
  write_file(dir.path() + "/suite.json", R"({"phases": [{"kind": "rdma", "ops": "atomic", "qps": 0}]})");
  CommandResult r = run_iofab({"validate", dir.path() + "/suite.json"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE((r.out + r.err).find("phases[0].ops"), std::string::npos) << r.out << r.err;
  EXPECT_NE((r.out + r.err).find("phases[0].qps"), std::string::npos) << r.out << r.err;
}

TEST(RdmaCli, ShippedFabricSuiteValidates) {
  CommandResult r = run_iofab({"validate", IOFAB_SOURCE_DIR "/workloads/suites/fabric.json"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  r = run_iofab({"validate", "fabric"});  // embedded
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

}  // namespace
}  // namespace iofab::testing
