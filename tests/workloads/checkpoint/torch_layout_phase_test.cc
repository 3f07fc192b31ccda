// The checkpoint phase in torch's layouts: torch_save writes one torch.save archive a rank of the size
// torch_framing.h derives; dcp frames its records and pads .metadata to DCP's pickled size, and restores
// still find every tensor byte; record_order, framing and calibration refuse what does not apply.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "workloads/phase_harness.h"
#include "workloads/checkpoint/checkpoint_files.h"
#include "workloads/checkpoint/dcp_metadata.h"
#include "workloads/checkpoint/manifest.h"
#include "workloads/checkpoint/torch_framing.h"

namespace iofab::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json model() {
  return {{"layers", 2}, {"hidden", 64}, {"ffn", 128}, {"vocab", 300}, {"heads", 4}, {"kv_heads", 2}};
}

json params(const std::string& layout, json extra = json::object()) {
  json p = {{"model", model()}, {"layout", layout},     {"count", 1},       {"gap", 0},
            {"workers", 1},     {"block_size", "4KiB"}, {"queue_depth", 4}, {"engine", "psync"}};
  for (auto& [k, v] : extra.items()) p[k] = v;
  return p;
}

TransformerSpec spec() {
  TransformerSpec s;
  EXPECT_TRUE(parse_model_spec(model(), "model", &s).ok());
  return s;
}

TEST(TorchSaveCheckpoint, WritesOneArchiveOfTheFormulasSizeAndRestoresReadIt) {
  PhaseHarness h;
  PhaseResult r;
  Status s = h.run("checkpoint", "ckpt", params("torch_save"), &r, true);
  ASSERT_TRUE(s.ok()) << s.message();
  const std::string step = h.path() + "/ckpt/step-1";
  ASSERT_TRUE(fs::exists(step + "/rank_0.pt"));
  std::vector<TorchTensor> ts;
  for (const RankTensor& t : rank_tensors(spec(), 0)) {
    ts.push_back(torch_tensor_of(tensor_name(t), t.bytes(), t.dtype_bytes));
  }
  const TorchArchive a = torch_archive("rank_0", ts, true);
  EXPECT_EQ(fs::file_size(step + "/rank_0.pt"), a.bytes);
  EXPECT_TRUE(fs::exists(step + "/manifest.json"));
  EXPECT_EQ(r.details["layout"]["kind"], "torch_save");
  EXPECT_EQ(r.details["layout"]["torch_framing_bytes"].get<uint64_t>(), a.framing_bytes());
  EXPECT_EQ(r.details["serialization"]["records"].get<uint64_t>(), ts.size());
  EXPECT_GT(r.details["serialization"]["spin_seconds_per_checkpoint"].get<double>(), 0);
  PhaseResult back;
  s = h.run("restore", "back", {{"checkpoint", "ckpt"}, {"engine", "psync"}, {"fanout", 1}}, &back, true);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(back.metrics["corrupt_shards"], 0);
}

TEST(DcpFramedCheckpoint, MetadataHasDcpsPickledSizeAndTensorsAreFoundInsideTheirArchives) {
  PhaseHarness h;
  PhaseResult r;
  Status s = h.run("checkpoint", "ckpt", params("dcp", {{"record_order", "state_dict"}}), &r, true);
  ASSERT_TRUE(s.ok()) << s.message();
  const auto files =
      plan_checkpoint_files(spec(), ReplicaWriter::kBalanced, CheckpointLayoutKind::kDcp, 1, 1, false, true);
  const std::string step = h.path() + "/ckpt/step-1";
  EXPECT_EQ(fs::file_size(step + "/__0_0.distcp"), files[0].bytes);
  EXPECT_EQ(fs::file_size(step + "/.metadata"), dcp_metadata_bytes(files));
  EXPECT_EQ(r.details["layout"]["dcp_metadata_bytes"].get<uint64_t>(), dcp_metadata_bytes(files));
  EXPECT_EQ(r.details["layout"]["record_order"], "state_dict");
  Manifest m;  // iofab's index, padded with spaces, still reads
  ASSERT_TRUE(parse_manifest(read_file(step + "/.metadata"), &m).ok());
  PhaseResult tensors;
  s = h.run("restore", "tensors", {{"checkpoint", "ckpt"}, {"engine", "psync"}, {"read", "tensors"}},
            &tensors, true);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(tensors.metrics["corrupt_shards"], 0);
  EXPECT_GT(tensors.details["tensors"]["slices"].get<uint64_t>(), 0u);
}

TEST(DcpFramedCheckpoint, FramingNoneWritesTheRawRecordsAndNoSpin) {
  PhaseHarness h;
  PhaseResult r;
  ASSERT_TRUE(h.run("checkpoint", "ckpt", params("dcp", {{"framing", "none"}}), &r, true).ok());
  EXPECT_EQ(r.details["layout"]["torch_framing_bytes"].get<uint64_t>(), 0u);
  EXPECT_FALSE(r.details.contains("serialization"));
}

TEST(TorchLayoutParams, WhatDoesNotApplyIsRefusedByName) {
  std::string errors;
  EXPECT_EQ(PhaseHarness::parse("checkpoint", params("torch_save", {{"record_order", "size"}}), &errors),
            nullptr);
  EXPECT_NE(errors.find("record_order"), std::string::npos) << errors;
  errors.clear();
  EXPECT_EQ(PhaseHarness::parse("checkpoint", params("dcp", {{"mode", "async"}, {"record_order", "size"}}),
                                &errors),
            nullptr);
  EXPECT_NE(errors.find("_SerialCpuLoader"), std::string::npos) << errors;
  errors.clear();
  EXPECT_EQ(PhaseHarness::parse("checkpoint", params("megatron", {{"calibration", "/nonexistent"}}), &errors),
            nullptr);
  EXPECT_NE(errors.find("calibration"), std::string::npos) << errors;
  errors.clear();
  EXPECT_EQ(
      PhaseHarness::parse("checkpoint", params("dcp", {{"calibration", "/nonexistent/cal.json"}}), &errors),
      nullptr);
  EXPECT_NE(errors.find("/nonexistent/cal.json"), std::string::npos) << errors;
}

}  // namespace
}  // namespace iofab::testing
