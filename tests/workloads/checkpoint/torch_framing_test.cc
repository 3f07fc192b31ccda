// torch.save's framing (torch_framing.h) and DCP's pickled .metadata (dcp_metadata.h): the zip and pickle
// arithmetic derived by hand, and, where /usr/bin/python3 has torch, the real writers' files for the same
// tensors (tests/workloads/torch_reference.py): same sizes, each tensor's bytes at the same offset.
#include "workloads/checkpoint/torch_framing.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_util.h"
#include "workloads/checkpoint/checkpoint_files.h"
#include "workloads/checkpoint/dcp_metadata.h"
#include "workloads/checkpoint/tensor_plan.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

TEST(TorchFraming, ABareTensorsArchiveByHand) {
  // torch.save(torch.zeros(1000, dtype=torch.bfloat16), f) into a file object (archive "archive"):
  // data.pkl: PROTO 2, the _rebuild_tensor_v2 global (33) and its BINPUT, the persistent id
  // ('storage', BFloat16Storage, '0', 'cpu', 1000) with BINPUTs, BINPERSID, offset 0, size (1000,),
  // stride (1,), False, OrderedDict() by REDUCE, the arguments' TUPLE, REDUCE, STOP: 155 bytes.
  const TorchTensor t = torch_tensor_of("w", 2000, 2);
  EXPECT_EQ(t.storage_type, "BFloat16Storage");
  EXPECT_EQ(t.numel, 1000u);
  EXPECT_EQ(torch_pickle({t}, false).size(), 155u);
  const TorchArchive a = torch_archive("archive", {t}, false);
  // Local header 30 + "archive/data.pkl" 16 + the FB field's 4: 50, padded to 64; 155 bytes of pickle
  // and a 16-byte data descriptor end at 235. data/0: 235 + 30 + 14 + 4 = 283 -> 320; 2000 bytes + 16 end
  // at 2336. version: 2336 + 30 + 15 + 4 = 2385 -> 2432; 2 + 16 end at 2450. The central directory, 3 x
  // 46 + 16 + 14 + 15 = 183, ends at 2633; zip64's end record and locator and the end record, 98: 2731.
  EXPECT_EQ(a.pickle_bytes, 155u);
  EXPECT_EQ(a.data_offsets, std::vector<uint64_t>{320});
  EXPECT_EQ(a.bytes, 2731u);
  EXPECT_EQ(a.framing_bytes(), 731u);
}

TEST(TorchFraming, ZipArithmeticAlignsTo64AndAddsZip64FieldsPast4GiB) {
  EXPECT_EQ(torch_zip_data_start(0, 16, 155), 64u);   // 30 + 16 + 4 = 50
  EXPECT_EQ(torch_zip_data_start(14, 16, 155), 64u);  // 64 exactly
  EXPECT_EQ(torch_zip_data_start(15, 16, 155), 128u);
  // 5 GB of data: zip64's extra field (4) with both sizes (16): 30 + 14 + 4 + 20 = 68 -> 128.
  EXPECT_EQ(torch_zip_data_start(0, 14, 5'000'000'000ULL), 128u);
  EXPECT_EQ(torch_zip_central_bytes(0, 14, 100), 60u);
  EXPECT_EQ(torch_zip_central_bytes(5'000'000'000ULL, 14, 100), 60u + 4 + 8);
  EXPECT_EQ(torch_zip_central_bytes(0, 14, 5'000'000'000ULL), 60u + 4 + 16);
  EXPECT_EQ(torch_archive_name_of("step-1/rank_3.pt"), "rank_3");
}

TEST(TorchFraming, StoragesGoInTheirKeysStringOrder) {
  EXPECT_EQ(torch_storage_order(12), (std::vector<size_t>{0, 1, 10, 11, 2, 3, 4, 5, 6, 7, 8, 9}));
  // A dict's data/<key> records follow that order: tensor 10's bytes lie before tensor 2's.
  std::vector<TorchTensor> ts;
  for (int i = 0; i < 12; ++i) ts.push_back(torch_tensor_of("t" + std::to_string(i), 128, 4));
  const TorchArchive a = torch_archive("rank_0", ts, true);
  EXPECT_LT(a.data_offsets[10], a.data_offsets[2]);
  EXPECT_LT(a.data_offsets[1], a.data_offsets[10]);
  for (uint64_t off : a.data_offsets) EXPECT_EQ(off % 64, 0u);
}

TEST(TorchFraming, AnOddScaledRecordIsAByteTensor) {
  const TorchTensor t = torch_tensor_of("w", 7, 2);
  EXPECT_EQ(t.storage_type, "ByteStorage");
  EXPECT_EQ(t.numel, 7u);
}

// A one-layer model on one rank, planned as layout torch_save and as dcp in the state dict's order.
TransformerSpec one_rank_model() {
  TransformerSpec s;
  s.layers = 2;
  s.hidden = 64;
  s.ffn = 128;
  s.vocab = 300;
  s.heads = 4;
  s.kv_heads = 2;
  return s;
}

TEST(TorchSaveLayout, OneArchiveARankWhoseSizeIsTheFormula) {
  const TransformerSpec s = one_rank_model();
  const auto files =
      plan_checkpoint_files(s, ReplicaWriter::kFirst, CheckpointLayoutKind::kTorchSave, 1, 1, false);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].path, "rank_0.pt");
  std::vector<TorchTensor> ts;
  for (const RankTensor& t : rank_tensors(s, 0))
    ts.push_back(torch_tensor_of(tensor_name(t), t.bytes(), t.dtype_bytes));
  const TorchArchive a = torch_archive("rank_0", ts, true);
  EXPECT_EQ(files[0].bytes, a.bytes);
  ASSERT_EQ(files[0].records.size(), ts.size());
  uint64_t tensor_bytes = 0;
  for (size_t i = 0; i + 1 < files[0].records.size(); ++i) {
    EXPECT_LT(files[0].records[i].file_offset + files[0].records[i].bytes,
              files[0].records[i + 1].file_offset);
  }
  for (const FileRecord& r : files[0].records) tensor_bytes += r.bytes;
  EXPECT_EQ(a.tensor_bytes, tensor_bytes);
  EXPECT_GT(a.framing_bytes(), 64 * ts.size());  // every storage's header and descriptor at least
}

TEST(DcpLayout, EveryRecordIsATorchSaveArchiveInTheOrderAsked) {
  const TransformerSpec s = one_rank_model();
  const auto plan_order = rank_tensors(s, 0);
  for (bool state_dict : {true, false}) {
    const auto files =
        plan_checkpoint_files(s, ReplicaWriter::kFirst, CheckpointLayoutKind::kDcp, 1, 1, false, state_dict);
    ASSERT_EQ(files.size(), 1u);
    const auto& recs = files[0].records;
    ASSERT_EQ(recs.size(), plan_order.size());
    uint64_t at = 0;
    for (size_t i = 0; i < recs.size(); ++i) {
      const TorchArchive a = torch_archive(
          "archive", {torch_tensor_of(recs[i].tensor, recs[i].bytes, recs[i].dtype_bytes)}, false);
      EXPECT_EQ(recs[i].frame_offset, at) << recs[i].tensor;
      EXPECT_EQ(recs[i].file_offset, at + a.data_offsets[0]) << recs[i].tensor;
      EXPECT_EQ(recs[i].frame_bytes, a.bytes);
      at += a.bytes;
      if (state_dict) {
        EXPECT_EQ(recs[i].tensor, tensor_name(plan_order[i]));  // PyTorch 1.13, no CUDA: the plan's order
      } else if (i > 0) {
        EXPECT_LE(recs[i - 1].bytes, recs[i].bytes);  // _OverlappingCpuLoader: smallest first
      }
    }
    EXPECT_EQ(files[0].bytes, at);
  }
  // framing "none": iofab's raw records, back to back.
  const auto raw =
      plan_checkpoint_files(s, ReplicaWriter::kFirst, CheckpointLayoutKind::kDcp, 1, 1, false, true, true);
  uint64_t sum = 0;
  for (const FileRecord& r : raw[0].records) {
    EXPECT_EQ(r.file_offset, sum);
    sum += r.bytes;
  }
  EXPECT_EQ(raw[0].bytes, sum);
}

bool python_has_torch() { return run_command({"/usr/bin/python3", "-c", "import torch"}).exit_code == 0; }

TEST(TorchFidelity, TheRealWritersFilesMatchThePlannedOnes) {
  if (!python_has_torch())
    GTEST_SKIP() << "/usr/bin/python3 has no torch (Debian's python3-torch): no real writer";
  const TransformerSpec s = one_rank_model();
  TempDir dir;
  json tensors = json::array();
  for (const RankTensor& t : rank_tensors(s, 0))
    tensors.push_back({tensor_name(t), t.dtype_bytes, t.elements});
  const CommandResult r =
      run_command({"/usr/bin/python3", std::string(IOFAB_SOURCE_DIR) + "/tests/workloads/torch_reference.py",
                   json{{"dir", dir.path()}, {"tensors", tensors}}.dump()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json real = json::parse(r.out.substr(r.out.rfind("{\"torch_save\"")));

  const auto ts =
      plan_checkpoint_files(s, ReplicaWriter::kFirst, CheckpointLayoutKind::kTorchSave, 1, 1, false);
  ASSERT_EQ(ts.size(), 1u);
  EXPECT_EQ(ts[0].bytes, real["torch_save"]["bytes"].get<uint64_t>());
  for (const FileRecord& rec : ts[0].records) {
    EXPECT_EQ(rec.file_offset, real["torch_save"]["offsets"][rec.tensor].get<uint64_t>()) << rec.tensor;
  }

  const auto dcp =
      plan_checkpoint_files(s, ReplicaWriter::kFirst, CheckpointLayoutKind::kDcp, 1, 1, false, true);
  ASSERT_EQ(dcp.size(), 1u);
  EXPECT_EQ(real["dcp"]["files"], json({".metadata", dcp[0].path}));
  EXPECT_EQ(dcp[0].bytes, real["dcp"]["distcp_bytes"].get<uint64_t>());
  EXPECT_EQ(dcp_metadata_bytes(dcp), real["dcp"]["metadata_bytes"].get<uint64_t>());
  json order = json::array();
  for (const FileRecord& rec : dcp[0].records) {
    order.push_back(rec.tensor);
    EXPECT_EQ(rec.file_offset, real["dcp"]["offsets"][rec.tensor].get<uint64_t>()) << rec.tensor;
  }
  EXPECT_EQ(order, real["dcp"]["order"]);
}

}  // namespace
}  // namespace iofab::testing
