// model_load's second definition of ready, safetensors' own (safetensors_ready.h): every replica maps the
// files, parses their headers and copies every tensor once, from a cold cache, beside iofab's verified read.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "workloads/phase_harness.h"
#include "workloads/calibration/torch_costs.h"
#include "workloads/checkpoint/model_spec.h"
#include "workloads/model_load/model_files.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

json small_model() {
  return {{"layers", 2}, {"hidden", 256}, {"ffn", 512}, {"vocab", 1000}, {"heads", 4}, {"kv_heads", 2}};
}

json load(json extra = json::object()) {
  json p = {{"model", small_model()}, {"max_shard_size", "1MB"}, {"workers", 2},
            {"block_size", "64KiB"},  {"queue_depth", 4},        {"engine", "mmap"}};
  for (auto& [k, v] : extra.items()) p[k] = v;
  return p;
}

TEST(ModelLoadSafetensors, EveryReplicaMaterializesEveryTensorOnce) {
  PhaseHarness h{"/var/tmp"};
  PhaseResult r;
  const Status s = h.run("model_load", "load", load(), &r);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_TRUE(r.failure.empty()) << r.failure;
  TransformerSpec spec;
  ASSERT_TRUE(parse_model_spec(small_model(), "model", &spec).ok());
  const ModelFiles planned = plan_model_files(spec, 1, 1'000'000, 1);
  const json& st = r.details["safetensors"];
  // Each replica made every tensor of every file and copied all of its bytes.
  EXPECT_EQ(st["tensors_per_replica"].get<uint64_t>(), planned.tensors);
  EXPECT_EQ(st["bytes_copied_per_replica"].get<uint64_t>(), planned.tensor_bytes);
  EXPECT_EQ(st["error"], "");
  ASSERT_TRUE(r.metrics.contains("safetensors_ready_seconds_max"));
  EXPECT_GT(r.metrics["safetensors_ready_seconds_max"], 0);
  EXPECT_LE(r.metrics["safetensors_ready_seconds_mean"], r.metrics["safetensors_ready_seconds_max"]);
  EXPECT_DOUBLE_EQ(r.metrics["safetensors_ready_ratio"],
                   r.metrics["safetensors_ready_seconds_max"] / r.metrics["ready_seconds_max"]);
  // The built-in costs (no calibration file given), and the spin they make per replica.
  EXPECT_EQ(st["costs_from"], "built-in defaults");
  const ItemCosts spin = builtin_safetensors_costs().spin();
  EXPECT_DOUBLE_EQ(
      st["spin_seconds_per_replica"].get<double>(),
      spin.seconds(static_cast<double>(planned.tensors), static_cast<double>(planned.tensor_bytes)));
  EXPECT_NE(st["io_uring"].get<std::string>().find("not used"), std::string::npos);
}

TEST(ModelLoadSafetensors, OffLeavesOnlyTheVerifiedRead) {
  PhaseHarness h{"/var/tmp"};
  PhaseResult r;
  ASSERT_TRUE(h.run("model_load", "load", load({{"safetensors_ready", false}}), &r).ok());
  EXPECT_TRUE(r.metrics.contains("ready_seconds_max"));
  EXPECT_FALSE(r.metrics.contains("safetensors_ready_seconds_max"));
  EXPECT_FALSE(r.details.contains("safetensors"));
}

TEST(ModelLoadSafetensors, ACalibrationFileGivesTheCostsAndABadOneIsAnError) {
  TempDir dir;
  const std::string good = dir.path() + "/cal.json";
  write_file(good, json{{"format", "iofab-calibration"},
                        {"version", 1},
                        {"created", "2026-12-07T00:00:00Z"},
                        {"sections",
                         {{"safetensors",
                           {{"python", {{"tensor_s", 2e-5}, {"byte_s", 1e-10}}},
                            {"native", {{"tensor_s", 0}, {"byte_s", 1e-11}}}}}}}}
                       .dump());
  PhaseHarness h{"/var/tmp"};
  PhaseResult r;
  ASSERT_TRUE(h.run("model_load", "load", load({{"calibration", good}}), &r).ok());
  EXPECT_EQ(r.details["safetensors"]["costs_from"], "calibration file");
  EXPECT_DOUBLE_EQ(r.details["safetensors"]["costs"]["spin"]["tensor_s"].get<double>(), 2e-5);

  const std::string bad = dir.path() + "/bad.json";
  write_file(bad, json{{"format", "iofab-calibration"},
                       {"version", 1},
                       {"created", "2026-12-07T00:00:00Z"},
                       {"sections", {{"safetensors", {{"python", {{"tensor_s", -1}, {"byte_s", 0}}}}}}}}
                      .dump());
  std::string errors;
  EXPECT_EQ(PhaseHarness::parse("model_load", load({{"calibration", bad}}), &errors), nullptr);
  EXPECT_NE(errors.find("sections.safetensors.python.tensor_s"), std::string::npos) << errors;
}

}  // namespace
}  // namespace iofab::testing
