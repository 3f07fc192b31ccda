// End-to-end: checkpoint and restore through the iofab binary, and `iofab plan`.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "test_util.h"

namespace iofab::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::vector<std::string> run_folders(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().filename().string().rfind("iofab-", 0) == 0) out.push_back(e.path().string());
  }
  return out;
}

const json& phase_named(const json& report, const std::string& name) {
  for (const auto& p : report["phases"]) {
    if (p["name"] == name) return p;
  }
  static const json none;
  ADD_FAILURE() << "no phase " << name;
  return none;
}

// A checkpoint of a 1e9-parameter model at 1/1000 size, then its restore; on tmpfs.
// The budget check must pass on a loaded machine: a 1000 h interval allows a 180,000 s stall, so
// the 14 GB full-size checkpoint passes at any rate above 78 KB/s. (The 1 ms case below fails it.)
const char* kSuite = R"({
  "defaults": {"engine": "psync", "workers": 2, "block_size": "1MiB", "queue_depth": 4},
  "phases": [
    {"kind": "checkpoint", "name": "checkpoint", "params": 1e9, "scale": 1000, "count": 2, "gap": "10ms",
     "interval": "1000h", "checks": [{"metric": "budget_margin", "op": ">=", "value": 1}]},
    {"kind": "restore", "name": "restore", "fanout": 4,
     "checks": [{"metric": "corrupt_shards", "op": "==", "value": 0}]}
  ]
})";

TEST(CheckpointCli, PlanPrintsTheWorkedNumbers) {
  CommandResult r = run_iofab({"plan", "--params", "175e9"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* s : {"2450000000000 bytes (2.45e12", "180 s", "13.6 GB/s", "19600000000000 bytes"}) {
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
  }
  r = run_iofab({"plan", "--params", "500e9", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["checkpoint_bytes"], 7.0e12);
  EXPECT_EQ(j["allowed_stall_seconds"], 180);

  r = run_iofab({"plan", "--params", "175e9", "--bytes-per-param", "14", "--interval", "1h",
                 "--budget-fraction", "5%", "--fanout", "8", "--gpus", "2000", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  j = json::parse(r.out);
  EXPECT_EQ(j["checkpoint_bytes"], 2.45e12);
  EXPECT_EQ(j["allowed_stall_seconds"], 180);
  EXPECT_DOUBLE_EQ(j["required_write_bytes_per_s"].get<double>(), 2.45e12 / 180);
  EXPECT_EQ(j["restore_read_bytes"], 1.96e13);
  EXPECT_DOUBLE_EQ(j["required_restore_bytes_per_s"].get<double>(), 1.96e13 / 180);
  EXPECT_DOUBLE_EQ(j["per_writer_write_bytes_per_s"].get<double>(), 2.45e12 / 180 / 2000);
  EXPECT_DOUBLE_EQ(j["per_gpu_read_bytes_per_s"].get<double>(), 1.96e13 / 180 / 2000);

  r = run_iofab({"plan", "--params", "175e9", "--gpus", "2000"});
  EXPECT_NE(r.out.find("per-GPU shares (2000 GPUs"), std::string::npos) << r.out;
}

// The figures docs/models.md quotes: the architecture's exact count, and MLPerf Storage's 70B split.
TEST(CheckpointCli, PlanPresetsPrintEveryRanksBytes) {
  CommandResult r = run_iofab({"plan", "--preset", "llama3-70b"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* s : {"70553706496 (7.06e10)", "987751890944 bytes (9.88e11, 919.92 GiB)"}) {
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
  }
  r = run_iofab({"plan", "--preset", "mlperf-llama3-70b"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* s : {"69882617856 (6.99e10)", "978406572032 bytes (9.78e11, 911.21 GiB)", "912 GiB",
                        "ranks 0-63                    15287602688 bytes (14.24 GiB) each"}) {
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
  }
  r = run_iofab({"plan", "--preset", "mlperf-llama3-405b", "--json", "--tensors", "256"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["model_plan"]["rank_bytes"].size(), 512u);
  EXPECT_EQ(j["model_plan"]["rank_bytes"][0], 13226441600u);
  EXPECT_EQ(j["model_plan"]["rank_bytes"][256], 9513171840u);
  EXPECT_EQ(j["published_gib"], 5290);
  // Data rank 1 under ZeRO 1: DLIO's three optimizer groups and their small companions, no weights.
  EXPECT_EQ(j["tensors"]["list"].size(), 6u);
  r = run_iofab({"plan", "--preset", "llama3-8b", "--model", "{\"tensor\": 2, \"data\": 2, \"zero\": 3}"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("tensor 2 x pipeline 1 x data 2 = 4 ranks, ZeRO 3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("112423657472 bytes"), std::string::npos) << r.out;  // 8,030,261,248 x 14
}

TEST(CheckpointCli, PlanShowsTheSkewOfEachReplicaWriter) {
  // ZeRO 0 over 4 data-parallel replicas: the first replica's 2 ranks write everything.
  const std::vector<std::string> base = {
      "plan", "--preset", "llama3-8b", "--model", R"({"tensor": 2, "data": 4, "zero": 0})", "--json"};
  std::map<std::string, json> plans;
  for (const char* w : {"first", "balanced", "spread", "all"}) {
    std::vector<std::string> args = base;
    args.insert(args.end(), {"--replica-writer", w});
    CommandResult r = run_iofab(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    plans[w] = json::parse(r.out)["model_plan"];
  }
  EXPECT_NEAR(plans["first"]["skew"].get<double>(), 4.0, 0.01);
  EXPECT_LT(plans["spread"]["skew"].get<double>(), 1.01);
  EXPECT_EQ(plans["spread"]["total_bytes"], plans["first"]["total_bytes"]);
  // DCP's balanced planner spreads the replicas too (each to the plan with the fewest bytes so far).
  EXPECT_LT(plans["balanced"]["skew"].get<double>(), plans["first"]["skew"].get<double>());
  EXPECT_EQ(plans["balanced"]["total_bytes"], plans["first"]["total_bytes"]);
  EXPECT_EQ(plans["balanced"]["replica_writer"], "balanced");
  EXPECT_GT(plans["all"]["total_bytes"].get<double>(), 3.9 * plans["first"]["total_bytes"].get<double>());
  CommandResult r = run_iofab({"plan", "--preset", "llama3-8b", "--replica-writer", "some"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--replica-writer: expected first, balanced, spread or all"), std::string::npos)
      << r.err;
  r = run_iofab({"plan", "--preset", "mlperf-llama3-8b", "--replica-writer", "spread"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("DLIO"), std::string::npos) << r.err;
}

TEST(CheckpointCli, PlanBadValuesExitTwoNamingTheOption) {
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  for (const Case& c :
       {Case{{"--params", "lots"}, "--params"}, Case{{"--params", "-5"}, "--params"},
        Case{{"--params", "1e9", "--interval", "soon"}, "--interval"},
        Case{{"--params", "1e9", "--budget-fraction", "2"}, "--budget-fraction"},
        Case{{"--params", "1e9", "--fanout", "0"}, "--fanout"},
        Case{{"--params", "1e9", "--fanout", "2.5"}, "--fanout"},
        Case{{"--params", "1e9", "--gpus", "x"}, "--gpus"},
        Case{{"--params", "1e9", "--bytes-per-param", "0"}, "--bytes-per-param"},
        Case{{}, "give either --params"},
        Case{{"--params", "1e9", "--preset", "llama3-8b"}, "give either --params"},
        Case{{"--preset", "llama9"}, "--preset: expected one of llama3-8b"},
        Case{{"--model", "{\"layers\": 80"}, "--model: expected a JSON object"},
        Case{{"--preset", "llama3-70b", "--model", "{\"heads\": 7}"}, "--model.heads: must divide hidden"},
        Case{{"--preset", "llama3-70b", "--model", "{\"zero\": 9}"}, "--model.zero: expected a ZeRO stage"},
        Case{{"--model", "{\"layers\": 2}"}, "--model.hidden: required"},
        Case{{"--preset", "llama3-70b", "--bytes-per-param", "2"}, "--bytes-per-param: applies only"},
        Case{{"--preset", "llama3-70b", "--writer-fraction", "0.5"}, "--writer-fraction: applies only"},
        Case{{"--preset", "llama3-70b", "--gpus", "8"}, "--gpus: a model's ranks"},
        Case{{"--preset", "mlperf-llama3-8b", "--tensors", "8"}, "--tensors: expected a rank from 0 to 7"}}) {
    std::vector<std::string> args{"plan"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    CommandResult r = run_iofab(args);
    EXPECT_EQ(r.exit_code, 2) << c.says;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.says << ": " << r.err;
  }
}

TEST(CheckpointCli, CheckpointThenRestorePassesAndCleansUp) {
  TempDir dir("/dev/shm");
  write_file(dir.path() + "/s.json", kSuite);
  const std::string report = dir.path() + "/r.json";
  CommandResult r =
      run_iofab({"run", dir.path() + "/s.json", "--target", dir.path() + "/t", "--out", report, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  json j = json::parse(read_file(report));
  const json& c = phase_named(j, "checkpoint");
  EXPECT_EQ(c["status"], "passed");
  EXPECT_EQ(c["result"]["metrics"]["full_checkpoint_bytes"], 14e9);
  EXPECT_EQ(c["result"]["metrics"]["checkpoints"], 2);
  EXPECT_EQ(c["params"]["interval"], 3.6e6);
  EXPECT_EQ(c["params"]["gap"], 0.01);
  const json& rs = phase_named(j, "restore");
  EXPECT_EQ(rs["status"], "passed");
  EXPECT_EQ(rs["result"]["metrics"]["read_write_ratio"], 4);
  EXPECT_EQ(rs["result"]["metrics"]["read_bytes"],
            4 * c["result"]["metrics"]["checkpoint_bytes"].get<double>());
  EXPECT_TRUE(run_folders(dir.path() + "/t").empty()) << "the checkpoint must go with the run folder";
}

TEST(CheckpointCli, TheBudgetVerdictFlipsWithTheInterval) {
  TempDir dir("/dev/shm");
  write_file(dir.path() + "/s.json", kSuite);
  for (const auto& [interval, code] : {std::pair<std::string, int>{"1ms", 1}, {"1000h", 0}}) {
    CommandResult r =
        run_iofab({"run", dir.path() + "/s.json", "--target", dir.path(), "--out", dir.path() + "/r.json",
                   "-q", "--set", "phases.checkpoint.interval=" + interval});
    EXPECT_EQ(r.exit_code, code) << interval << ": " << r.err;
    json j = json::parse(read_file(dir.path() + "/r.json"));
    const json& check = phase_named(j, "checkpoint")["checks"][0];
    EXPECT_EQ(check["metric"], "budget_margin");
    EXPECT_EQ(check["passed"], code == 0) << interval;
  }
}

TEST(CheckpointCli, RestoresAKeptCheckpointFromAnotherRunAndNamesACorruptShard) {
  TempDir dir("/dev/shm");
  write_file(dir.path() + "/s.json", kSuite);
  CommandResult r = run_iofab({"run", dir.path() + "/s.json", "--target", dir.path() + "/a", "--out",
                               dir.path() + "/a.json", "-q", "--keep"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string step =
      json::parse(read_file(dir.path() + "/a.json"))["target"]["run_folder"].get<std::string>() +
      "/checkpoint/step-2";
  ASSERT_TRUE(fs::exists(step + "/manifest.json")) << step;
  ASSERT_FALSE(fs::exists(fs::path(step).parent_path() / "step-1"))
      << "keep 1: only the newest checkpoint stays";

  write_file(dir.path() + "/restore.json",
             R"({"phases": [{"kind": "restore", "engine": "psync", "workers": 2, "fanout": 2, "from": ")" +
                 step + R"(", "checks": [{"metric": "corrupt_shards", "op": "==", "value": 0}]}]})");
  r = run_iofab({"run", dir.path() + "/restore.json", "--target", dir.path() + "/b", "--out",
                 dir.path() + "/b.json", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(read_file(dir.path() + "/b.json"));
  EXPECT_EQ(j["phases"][0]["result"]["details"]["checkpoint"]["from_another_run"], true);
  EXPECT_EQ(j["phases"][0]["result"]["metrics"]["read_write_ratio"], 2);

  {
    std::fstream f(step + "/shard-00001-of-00002.bin", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(4096);
    f.put('\x5a');
  }
  r = run_iofab({"run", dir.path() + "/restore.json", "--target", dir.path() + "/b", "--out",
                 dir.path() + "/b.json", "-q"});
  // A checkpoint that fails verification is a failed phase and a failed check (exit 1), not a runtime
  // error (3); the check carries the measured value.
  EXPECT_EQ(r.exit_code, 1) << r.err;
  j = json::parse(read_file(dir.path() + "/b.json"));
  EXPECT_EQ(j["phases"][0]["status"], "failed");
  EXPECT_EQ(j["verdict"]["status"], "failed");
  ASSERT_EQ(j["phases"][0]["checks"].size(), 1u);
  EXPECT_EQ(j["phases"][0]["checks"][0]["value"], 1);
  EXPECT_EQ(j["phases"][0]["checks"][0]["passed"], false);
  EXPECT_NE(j["phases"][0]["reason"].get<std::string>().find("shard-00001-of-00002.bin: corrupt"),
            std::string::npos)
      << j["phases"][0]["reason"];
  EXPECT_EQ(j["phases"][0]["result"]["metrics"]["corrupt_shards"], 1);
  EXPECT_TRUE(fs::exists(step + "/manifest.json")) << "from is read only";
}

TEST(CheckpointCli, ShippedSuitesValidate) {
  CommandResult r = run_iofab({"validate", "gpt3-175b-2000gpu"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["phases"][0]["kind"], "checkpoint");
  EXPECT_EQ(j["phases"][0]["params"]["params"], 175e9);
  EXPECT_EQ(j["phases"][0]["params"]["interval"], 3600);
  EXPECT_EQ(j["phases"][0]["params"]["workers"], 8);
  r = run_iofab({"validate", IOFAB_SOURCE_DIR "/workloads/suites/gpt3-175b-2000gpu.json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;

  r = run_iofab({"validate", "default"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  j = json::parse(r.out);
  std::vector<std::string> kinds;
  for (const auto& p : j["phases"]) kinds.push_back(p["kind"]);
  auto ck = std::find(kinds.begin(), kinds.end(), "checkpoint");
  auto rs = std::find(kinds.begin(), kinds.end(), "restore");
  ASSERT_NE(ck, kinds.end());
  ASSERT_NE(rs, kinds.end());
  EXPECT_LT(ck, rs) << "restore reads what checkpoint wrote";
  const json& c = j["phases"][ck - kinds.begin()];
  EXPECT_EQ(c["checks"][0]["metric"], "budget_margin");
  EXPECT_EQ(c["params"]["direct"], true);  // from the suite's defaults
}

}  // namespace
}  // namespace iofab::testing
