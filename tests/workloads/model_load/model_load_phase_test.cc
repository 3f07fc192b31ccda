// Phase model_load in-process: the files written once and read by every replica, every byte verified;
// the same files read by later phases with other engines (weights_from); a corrupted byte fails the
// phase by name; the budget; and the params' errors, each naming its JSON path.
#include "workloads/model_load/model_load_phase.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "test_util.h"
#include "workloads/phase_harness.h"

namespace iofab::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A 2-layer model split into a few files of a few hundred KiB.
json load(json extra = json::object()) {
  json p = {{"model",
             {{"layers", 2}, {"hidden", 256}, {"ffn", 512}, {"vocab", 1000}, {"heads", 4}, {"kv_heads", 2}}},
            {"max_shard_size", "1MB"},
            {"workers", 2},
            {"block_size", "64KiB"},
            {"queue_depth", 4},
            {"engine", "psync"}};
  for (auto& [k, v] : extra.items()) p[k] = v;
  return p;
}

json reuse(const std::string& engine, json extra = json::object()) {
  json p = {{"weights_from", "load"}, {"engine", engine}, {"workers", 2}, {"block_size", "64KiB"}};
  for (auto& [k, v] : extra.items()) p[k] = v;
  return p;
}

std::string errors_of(const json& params) {
  std::string errors;
  EXPECT_EQ(PhaseHarness::parse("model_load", params, &errors), nullptr) << params.dump();
  return errors;
}

class ModelLoadPhaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const Status s = h.run("model_load", "load", load(), &first);
    ASSERT_TRUE(s.ok()) << s.message();
    ASSERT_TRUE(first.failure.empty()) << first.failure;
  }
  std::string folder() const { return h.path() + "/load"; }
  PhaseHarness h{"/var/tmp"};
  PhaseResult first;
};

TEST_F(ModelLoadPhaseTest, EveryReplicaReadsAndVerifiesEveryByteOfEveryFile) {
  auto& m = first.metrics;
  const double files = m["shard_files"];
  EXPECT_GT(files, 1);
  EXPECT_EQ(m["replicas"], 2);
  uint64_t on_disk = 0;
  for (const auto& e : fs::directory_iterator(folder())) {
    if (e.path().extension() == ".safetensors") on_disk += e.file_size();
  }
  EXPECT_EQ(m["model_bytes"], static_cast<double>(on_disk));
  EXPECT_EQ(m["read_bytes"], 2 * m["model_bytes"]);
  EXPECT_EQ(m["corrupt_files"], 0);
  EXPECT_GT(m["verified_bytes"], 0);
  EXPECT_LT(m["verified_bytes"], m["read_bytes"]);     // the headers are parsed, not compared
  EXPECT_EQ(m["full_model_bytes"], m["model_bytes"]);  // scale 1
  EXPECT_GT(m["ready_seconds_min"], 0);
  EXPECT_LE(m["ready_seconds_min"], m["ready_seconds_mean"]);
  EXPECT_LE(m["ready_seconds_mean"], m["ready_seconds_max"]);
  EXPECT_DOUBLE_EQ(m["projected_ready_seconds"], m["ready_seconds_max"]);
  EXPECT_FALSE(m.contains("ready_budget_margin"));
  EXPECT_TRUE(m.contains("write_seconds"));
  EXPECT_EQ(first.details["weights"]["written_by_this_phase"], true);
  EXPECT_EQ(first.details["engine"], "psync");
  EXPECT_TRUE(fs::exists(folder() + "/model.safetensors.index.json"));
  EXPECT_TRUE(fs::exists(folder() + "/model-00001-of-0000" + std::to_string(static_cast<int>(files)) +
                         ".safetensors"));
}

TEST_F(ModelLoadPhaseTest, LaterPhasesReadTheSameFilesWithEveryEngine) {
  for (const std::string engine : {"mmap", "psync", "io_uring"}) {
    PhaseResult r;
    const Status s = h.run("model_load", "load-" + engine, reuse(engine, {{"queue_depth", 8}}), &r);
    if (engine == "io_uring" && s.code() == Status::Code::kUnavailable) continue;
    ASSERT_TRUE(s.ok()) << engine << ": " << s.message();
    EXPECT_TRUE(r.failure.empty()) << r.failure;
    EXPECT_EQ(r.metrics["model_bytes"], first.metrics["model_bytes"]) << engine;
    EXPECT_EQ(r.metrics["read_bytes"], first.metrics["read_bytes"]) << engine;
    EXPECT_EQ(r.metrics["verified_bytes"], first.metrics["verified_bytes"]) << engine;
    EXPECT_EQ(r.metrics["corrupt_files"], 0) << engine;
    EXPECT_FALSE(r.metrics.contains("write_seconds")) << engine;
    EXPECT_EQ(r.details["weights"]["written_by_this_phase"], false);
    EXPECT_EQ(r.details["engine"], engine);
    EXPECT_FALSE(fs::exists(h.path() + "/load-" + engine)) << "reads only: no folder of its own";
  }
}

TEST_F(ModelLoadPhaseTest, MmapTakesEveryHint) {
  for (const char* hint : {"sequential", "random", "willneed"}) {
    PhaseResult r;
    const Status s = h.run("model_load", "again", reuse("mmap", {{"madvise", hint}}), &r);
    ASSERT_TRUE(s.ok()) << hint << ": " << s.message();
    EXPECT_EQ(r.metrics["corrupt_files"], 0) << hint;
    EXPECT_EQ(r.details["madvise"], hint);
  }
}

TEST_F(ModelLoadPhaseTest, ACorruptedTensorByteFailsThePhaseNamingFileAndTensor) {
  flip_byte(folder() + "/model-00001-of-0000" +
                std::to_string(static_cast<int>(first.metrics["shard_files"])) + ".safetensors",
            50000);
  for (const std::string engine : {"mmap", "psync"}) {
    PhaseResult r;
    const Status s = h.run("model_load", "again", reuse(engine), &r);
    // Wrong bytes are the storage failing the phase (exit 1), with its figures; not an error (exit 3).
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_NE(r.failure.find("model-00001-of-"), std::string::npos) << r.failure;
    EXPECT_NE(r.failure.find("corrupt: tensor model.embed_tokens.weight differs at its byte"),
              std::string::npos)
        << r.failure;
    EXPECT_EQ(r.metrics["corrupt_files"], 1);
    EXPECT_FALSE(r.metrics.contains("ready_seconds_max")) << "no replica got ready";
    EXPECT_EQ(r.metrics["read_bytes"], first.metrics["read_bytes"]);
  }
}

TEST_F(ModelLoadPhaseTest, AMissingFileIsAnErrorNamingIt) {
  fs::remove(folder() + "/model-00002-of-0000" +
             std::to_string(static_cast<int>(first.metrics["shard_files"])) + ".safetensors");
  PhaseResult r;
  const Status s = h.run("model_load", "again", reuse("psync"), &r);
  EXPECT_EQ(s.code(), Status::Code::kIoError);
  EXPECT_NE(s.message().find("model-00002-of-"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("weights_from \"load\""), std::string::npos) << s.message();
}

TEST_F(ModelLoadPhaseTest, WeightsFromAPhaseThatWroteNoneIsAnError) {
  PhaseResult r;
  json p = reuse("psync");
  p["weights_from"] = "nothing-here";
  const Status s = h.run("model_load", "again", p, &r);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("weights_from \"nothing-here\""), std::string::npos) << s.message();
}

TEST_F(ModelLoadPhaseTest, TheBudgetIsJudgedAtFullSize) {
  PhaseResult r;
  ASSERT_TRUE(h.run("model_load", "again", reuse("psync", {{"ready_budget", "1h"}}), &r).ok());
  auto& m = r.metrics;
  EXPECT_EQ(m["allowed_ready_seconds"], 3600);
  EXPECT_GT(m["ready_budget_margin"], 1);
  EXPECT_DOUBLE_EQ(m["ready_budget_margin"], 3600 / m["projected_ready_seconds"]);
  EXPECT_EQ(r.details["ready_budget"]["passed"], true);
}

TEST(ModelLoadScaled, AScaledPresetProjectsToTheFullModel) {
  PhaseHarness h;
  PhaseResult r;
  const Status s =
      h.run("model_load", "load",
            {{"preset", "llama3-8b"}, {"scale", 2000}, {"engine", "mmap"}, {"ready_budget", "1min"}}, &r);
  ASSERT_TRUE(s.ok()) << s.message();
  auto& m = r.metrics;
  EXPECT_EQ(m["parameters"], 8030261248.0);
  EXPECT_EQ(m["shard_files"], 4);
  EXPECT_NEAR(m["full_model_bytes"] / m["model_bytes"], 2000, 200);
  EXPECT_NEAR(m["projected_ready_seconds"] / m["ready_seconds_max"], m["full_model_bytes"] / m["model_bytes"],
              1e-6 * m["full_model_bytes"] / m["model_bytes"]);
  EXPECT_DOUBLE_EQ(m["ready_budget_margin"], 60 / m["projected_ready_seconds"]);
  EXPECT_EQ(m["corrupt_files"], 0);
}

TEST(ModelLoadParams, DefaultsAreLlama3_8bInFourFilesOneReplicaPerRank) {
  const auto phase = PhaseHarness::parse("model_load", {{"scale", 1000}});
  ASSERT_NE(phase, nullptr);
  EXPECT_GT(phase->planned_bytes(1).value(), 15'000'000u);
  EXPECT_LT(phase->planned_bytes(1).value(), 17'000'000u);
  EXPECT_EQ(phase->retained_bytes(1), phase->planned_bytes(1));
  const auto reader = PhaseHarness::parse("model_load", {{"weights_from", "load"}});
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(reader->planned_bytes(4).value(), 0u);
}

TEST(ModelLoadParams, ErrorsNameTheJsonPath) {
  EXPECT_NE(errors_of({{"direct", true}}).find("phases[0].direct: model_load reads through the page cache"),
            std::string::npos);
  EXPECT_NE(errors_of({{"engine", "mmap"}, {"direct", true}}).find("phases[0].direct: engine mmap"),
            std::string::npos);
  EXPECT_NE(errors_of({{"engine", "psync"}, {"madvise", "random"}}).find("phases[0].madvise:"),
            std::string::npos);
  EXPECT_NE(errors_of({{"madvise", "often"}}).find("phases[0].madvise: expected one of"), std::string::npos);
  EXPECT_NE(errors_of({{"weights_from", "a/b"}}).find("phases[0].weights_from: expected the name"),
            std::string::npos);
  EXPECT_NE(errors_of({{"weights_from", "load"}, {"scale", 10}}).find("phases[0].scale: shapes the files"),
            std::string::npos);
  EXPECT_NE(errors_of({{"weights_from", "load"}, {"preset", "llama3-70b"}}).find("phases[0].preset:"),
            std::string::npos);
  EXPECT_NE(errors_of({{"preset", "mlperf-llama3-8b"}}).find("phases[0].preset: model_load lays out"),
            std::string::npos);
  EXPECT_NE(errors_of({{"preset", "llama3-9b"}}).find("phases[0].preset: expected one of"),
            std::string::npos);
  EXPECT_NE(
      errors_of({{"model", {{"tensor", 8}}}}).find("phases[0].model: every replica loads the whole model"),
      std::string::npos);
  EXPECT_NE(errors_of({{"model", {{"layers", "many"}}}}).find("phases[0].model.layers"), std::string::npos);
  EXPECT_NE(errors_of({{"scale", 0.5}}).find("phases[0].scale"), std::string::npos);
  EXPECT_NE(errors_of({{"ready_budget", "soon"}}).find("phases[0].ready_budget"), std::string::npos);
  EXPECT_NE(errors_of({{"fanout", 2}}).find("phases[0].fanout"), std::string::npos);
}

}  // namespace
}  // namespace iofab::testing
