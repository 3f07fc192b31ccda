// The checkpoint phase with a model: its shards follow the model's per-rank plan (tensor_plan.h).
#include <gtest/gtest.h>

#include <filesystem>

#include "workloads/phase_harness.h"
#include "workloads/checkpoint/manifest.h"
#include "workloads/checkpoint/presets.h"
#include "workloads/checkpoint/shard_layout.h"
#include "workloads/checkpoint/tensor_plan.h"

namespace iofab::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// tensor 2 x data 2 at ZeRO 1 of a two-layer model: four planned ranks of unequal bytes (tensor
// rank 0 keeps the norms; data rank 1 only its optimizer half). model_plan_test.cc counts them by hand.
json tiny_model() {
  return {{"layers", 2},   {"hidden", 64}, {"ffn", 128}, {"vocab", 100}, {"heads", 4},
          {"kv_heads", 2}, {"tensor", 2},  {"data", 2},  {"zero", 1}};
}

json run_params(json extra = json::object()) {
  json p = {{"model", tiny_model()}, {"count", 1},       {"gap", 0},         {"workers", 4},
            {"block_size", "4KiB"},  {"queue_depth", 4}, {"engine", "psync"}};
  for (auto& [k, v] : extra.items()) p[k] = v;
  return p;
}

TransformerSpec tiny_spec() {
  TransformerSpec s;
  EXPECT_TRUE(parse_model_spec(tiny_model(), "model", &s).ok());
  return s;
}

TEST(CheckpointModel, EachShardIsItsPlannedRanksBytes) {
  const ModelPlan plan = plan_model(tiny_spec());
  ASSERT_EQ(plan.ranks, 4u);
  ASSERT_NE(plan.rank_bytes[0], plan.rank_bytes[1]);
  PhaseHarness h;
  PhaseResult r;
  Status s = h.run("checkpoint", "ckpt", run_params(), &r);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(r.metrics["shards"], 4);
  EXPECT_EQ(r.metrics["full_checkpoint_bytes"], static_cast<double>(plan.total_bytes));
  // Scale 1, buffered: every shard holds exactly its planned rank's bytes.
  EXPECT_EQ(r.metrics["checkpoint_bytes"], static_cast<double>(plan.total_bytes));
  Manifest m;
  ASSERT_TRUE(parse_manifest(read_file(h.path() + "/ckpt/step-1/manifest.json"), &m).ok());
  ASSERT_EQ(m.shards.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(m.shards[i].bytes, plan.rank_bytes[i]) << i;
    EXPECT_EQ(fs::file_size(h.path() + "/ckpt/step-1/" + m.shards[i].name), plan.rank_bytes[i]);
  }
  EXPECT_EQ(r.details["model"]["plan_ranks"], 4);
  EXPECT_EQ(r.details["model"]["params"], static_cast<double>(plan.parameters));
}

TEST(CheckpointModel, FewerWritersThanRanksFoldRanksTogether) {
  TransformerSpec spec = tiny_spec();
  const ModelPlan plan = plan_model(spec);
  // Two writers for four planned ranks: shard 0 holds ranks 0 and 2, shard 1 ranks 1 and 3.
  const ShardLayout l = plan_shard_layout(plan.rank_bytes, 1, 1, 2, false);
  ASSERT_EQ(l.shards, 2u);
  EXPECT_EQ(l.sizes[0], plan.rank_bytes[0] + plan.rank_bytes[2]);
  EXPECT_EQ(l.sizes[1], plan.rank_bytes[1] + plan.rank_bytes[3]);
  EXPECT_EQ(l.checkpoint_bytes(), plan.total_bytes);
  // Scaled down and O_DIRECT: ceil(bytes / scale), then up to 4 KiB.
  const ShardLayout d = plan_shard_layout({10000, 0, 9000}, 2, 1, 4, true);
  ASSERT_EQ(d.shards, 2u);  // the rank with nothing to write gets no shard
  EXPECT_EQ(d.sizes[0], 8192u);
  EXPECT_EQ(d.sizes[1], 8192u);
  EXPECT_EQ(plan_shard_layout({10000, 0, 9000}, 2, 1, 4, false).sizes[1], 4500u);
}

TEST(CheckpointModel, PresetScaledDown) {
  PhaseHarness h;
  PhaseResult r;
  json p = run_params({{"preset", "mlperf-llama3-70b"}, {"scale", 1e5}, {"workers", 8}});
  p.erase("model");
  Status s = h.run("checkpoint", "ckpt", p, &r);
  ASSERT_TRUE(s.ok()) << s.message();
  const ModelPlan plan = plan_model(find_model_preset("mlperf-llama3-70b")->spec);
  EXPECT_EQ(r.metrics["full_checkpoint_bytes"], static_cast<double>(plan.total_bytes));
  // 64 planned ranks of 15,287,602,688 bytes on 8 writers: 8 ranks a shard, / 1e5, rounded up.
  EXPECT_EQ(r.metrics["shards"], 8);
  EXPECT_EQ(r.metrics["checkpoint_bytes"], 8 * 1223009.0);
}

TEST(CheckpointModel, BadModelParamsNameTheField) {
  struct Case {
    json params;
    std::string says;
  };
  for (const Case& c : {
           Case{{{"model", {{"layers", 80}, {"hidden", "wide"}}}},
                "phases[0].model.hidden: expected a whole number"},
           Case{{{"preset", "llama9"}}, "phases[0].preset"},
           Case{{{"preset", "llama3-8b"}, {"model", {{"zero", 5}}}}, "phases[0].model.zero"},
           Case{{{"preset", "llama3-8b"}, {"params", 1e9}}, "phases[0].params: give either a model"},
           Case{{{"preset", "llama3-8b"}, {"writer_fraction", 0.5}},
                "phases[0].writer_fraction: applies only without"},
           Case{{{"model", {{"layers", 2}}}}, "phases[0].model.hidden: required"},
       }) {
    std::string errors;
    EXPECT_EQ(PhaseHarness::parse("checkpoint", c.params, &errors), nullptr) << c.params.dump();
    EXPECT_NE(errors.find(c.says), std::string::npos) << c.params.dump() << ": " << errors;
  }
}

}  // namespace
}  // namespace iofab::testing
