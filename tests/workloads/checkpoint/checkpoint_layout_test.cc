// Model-shaped checkpoints: who writes replicated state (replica_writer), the files of layouts dcp
// and megatron, the tensors' content, and the DCP commit (.metadata written last).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <set>

#include "workloads/failing_store.h"
#include "workloads/forwarding_store.h"
#include "workloads/phase_harness.h"
#include "workloads/checkpoint/checkpoint_files.h"
#include "workloads/checkpoint/manifest.h"
#include "workloads/checkpoint/phase_folder.h"
#include "workloads/checkpoint/results.h"
#include "workloads/checkpoint/tensor_content.h"
#include "workloads/checkpoint/tensor_plan.h"

namespace iofab::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json small_model(json extra = json::object()) {
  json m = {{"layers", 2},   {"hidden", 64}, {"ffn", 128}, {"vocab", 100}, {"heads", 4},
            {"kv_heads", 2}, {"tensor", 2},  {"data", 2},  {"zero", 0}};
  for (auto& [k, v] : extra.items()) m[k] = v;
  return m;
}

TransformerSpec spec_of(const json& j) {
  TransformerSpec s;
  EXPECT_TRUE(parse_model_spec(j, "model", &s).ok());
  return s;
}

// Every byte of every tensor state, over every rank's pieces: how often it is held.
std::map<std::string, std::vector<int>> coverage(const TransformerSpec& s, ReplicaWriter w) {
  std::map<std::string, std::vector<int>> seen;
  for (const auto& rank : all_rank_tensors(s, w)) {
    for (const RankTensor& t : rank) {
      auto& v = seen[tensor_name(t)];
      v.resize(t.whole, 0);
      for (uint64_t e = t.offset; e < t.offset + t.elements; ++e) ++v[e];
    }
  }
  return seen;
}

TEST(ReplicaWriter, FirstAndSpreadWriteEveryElementOnceAllWritesEveryCopy) {
  for (int zero : {0, 1, 3}) {
    const TransformerSpec s = spec_of(small_model({{"zero", zero}}));
    for (ReplicaWriter w : {ReplicaWriter::kFirst, ReplicaWriter::kSpread}) {
      for (const auto& [name, counts] : coverage(s, w)) {
        EXPECT_TRUE(std::all_of(counts.begin(), counts.end(), [](int c) { return c == 1; }))
            << name << " zero " << zero << " writer " << replica_writer_name(w);
      }
    }
    // No dedup: a norm vector is on every one of the 4 ranks (2 tensor x 2 data) below ZeRO 3.
    if (zero < 3) {
      const auto all = coverage(s, ReplicaWriter::kAll);
      EXPECT_EQ(all.at("layers.0.attn_norm.weight").front(), 4) << zero;
    }
  }
}

TEST(ReplicaWriter, FirstSkewsSpreadBalancesAllMultiplies) {
  const TransformerSpec s = spec_of(small_model());  // ZeRO 0: the data-parallel ranks hold copies
  const ModelPlan first = plan_model(s, ReplicaWriter::kFirst);
  const ModelPlan spread = plan_model(s, ReplicaWriter::kSpread);
  const ModelPlan all = plan_model(s, ReplicaWriter::kAll);
  // First: data-parallel rank 1 (ranks 2 and 3) writes nothing; the skew is about the data degree.
  EXPECT_EQ(first.rank_bytes[2], 0u);
  EXPECT_EQ(first.rank_bytes[3], 0u);
  EXPECT_GT(first.skew(), 1.9);
  // Spread: the same bytes, spread so that no rank writes more than a third above the mean.
  EXPECT_EQ(spread.total_bytes, first.total_bytes);
  EXPECT_LT(spread.skew(), 1.34);
  EXPECT_GT(spread.rank_bytes[2], 0u);
  EXPECT_LT(spread.skew(), first.skew());
  // All: every replica writes its copy.
  EXPECT_GT(all.total_bytes, 2 * first.total_bytes - 1);
  EXPECT_EQ(all.writing_ranks, 4u);
  EXPECT_DOUBLE_EQ(rank_skew(first.rank_bytes), first.skew());
}

TEST(CheckpointFiles, DcpNamesAFilePerRankAndThreadAndBalancesThem) {
  const TransformerSpec s = spec_of(small_model({{"zero", 3}}));
  // framing "none" (raw): the records back to back, so the files add up to the plan (torch's framing:
  // torch_framing_test.cc).
  const auto files =
      plan_checkpoint_files(s, ReplicaWriter::kFirst, CheckpointLayoutKind::kDcp, 2, 1, false, false, true);
  ASSERT_EQ(files.size(), 8u);  // 4 ranks x 2 threads
  EXPECT_EQ(files[0].path, "__0_0.distcp");
  EXPECT_EQ(files[1].path, "__0_1.distcp");
  EXPECT_EQ(files[7].path, "__3_1.distcp");
  const ModelPlan plan = plan_model(s);
  for (uint64_t r = 0; r < 4; ++r) {
    const PlannedFile& a = files[2 * r];
    const PlannedFile& b = files[2 * r + 1];
    EXPECT_EQ(a.bytes + b.bytes, plan.rank_bytes[r]) << r;
    uint64_t largest = 0;
    for (const auto* f : {&a, &b}) {
      uint64_t at = 0;
      for (const FileRecord& rec : f->records) {
        EXPECT_EQ(rec.file_offset, at) << f->path;  // one record after the other
        at += rec.bytes;
        largest = std::max(largest, rec.bytes);
      }
    }
    // The greedy split (largest first, to the lighter file) leaves them at most one tensor apart.
    EXPECT_LE(std::max(a.bytes, b.bytes) - std::min(a.bytes, b.bytes), largest) << r;
  }
  // With one file a rank and an async save (staged), the state dict's order: weights first, then the
  // optimizer.
  const auto one =
      plan_checkpoint_files(s, ReplicaWriter::kFirst, CheckpointLayoutKind::kDcp, 1, 1, false, true);
  EXPECT_EQ(one[0].records.front().tensor, "embedding.weight");
  EXPECT_TRUE(one[0].records.front().weights);
  EXPECT_FALSE(one[0].records.back().weights);
}

// The tiny model of the hand derivations below: 252 parameters, 3,528 bytes of state (bf16 weights,
// fp32 master and two moments: 14 bytes a parameter), on 2 data-parallel ranks at ZeRO 0, so every item
// is on both. Its items in a plan's order, bytes: the weights of embedding 80 (10 x 4 x 2), attn_norm
// 8, q k v o 32 each, mlp_norm 8, gate up down 64 each, final_norm 8, output 80; then per tensor its
// master and moments, 2x each weight's bytes, three times.
json tiny_model() {
  return {{"layers", 1}, {"hidden", 4},   {"ffn", 8},  {"vocab", 10},
          {"heads", 2},  {"kv_heads", 2}, {"data", 2}, {"zero", 0}};
}

TEST(ReplicaWriter, BalancedIsDcpsDedupSavePlans) {
  // torch/distributed/checkpoint/_dedup_save_plans.py (commit 646bddd), lines 35-41: each item, in the
  // order of first appearance (rank 0's plan first), goes to min(plan_indices, key=plan_to_size), the
  // lowest rank on a tie, and that plan's size grows by the item's bytes. By hand: weights emb 80 -> r0
  // (80, 0); attn_norm 8, q, k, v -> r1 (80, 104); o -> r0 (112, 104); mlp_norm -> r1 (112, 112); gate
  // (tie) -> r0, up -> r1, down -> r0, final_norm -> r1, output -> r1: (240, 264). Optimizer: emb 160 x3
  // -> r0 r1 r0 (560, 424); attn_norm 16 x3 -> r1 (560, 472); q 64 x3 -> r1 r1 r0 (624, 600); k -> r1 r0
  // r1 (688, 728); v -> r0 r1 r0 (816, 792); o -> r1 r0 r1 (880, 920); mlp_norm 16 x3 -> r0 r0 r0 (928,
  // 920); gate 128 x3 -> r1 r0 r1 (1056, 1176); up -> r0 r1 r0 (1312, 1304); down -> r1 r0 r1 (1440,
  // 1560); final_norm 16 x3 -> r0 (1488, 1560); output 160 x3 -> r0 r1 r0: (1808, 1720).
  const TransformerSpec s = spec_of(tiny_model());
  const ModelPlan balanced = plan_model(s, ReplicaWriter::kBalanced);
  EXPECT_EQ(balanced.rank_bytes, (std::vector<uint64_t>{1808, 1720}));
  // PyTorch 2.2 and before (and iofab's "first"): all on rank 0.
  EXPECT_EQ(plan_model(s, ReplicaWriter::kFirst).rank_bytes, (std::vector<uint64_t>{3528, 0}));
  // Which rank got what: rank 1 begins with attn_norm's weight, rank 0 with the embedding's.
  const auto ranks = all_rank_tensors(s, ReplicaWriter::kBalanced);
  EXPECT_EQ(tensor_name(ranks[0].front()), "embedding.weight");
  EXPECT_EQ(tensor_name(ranks[1].front()), "layers.0.attn_norm.weight");
  // Every element written once, at every ZeRO stage and with tensor parallelism too.
  for (int zero : {0, 1, 3}) {
    for (const auto& [name, counts] :
         coverage(spec_of(small_model({{"zero", zero}})), ReplicaWriter::kBalanced)) {
      EXPECT_TRUE(std::all_of(counts.begin(), counts.end(), [](int c) { return c == 1; })) << name << zero;
    }
  }
}

TEST(CheckpointFiles, DcpWritesAFilesTensorsSmallestFirstAndAnEmptyFileForAnEmptyRank) {
  // torch/distributed/checkpoint/filesystem.py (commit b639d82): with one thread and CUDA,
  // _write_files_from_queue loads a file's tensors through _OverlappingCpuLoader, whose start_loading
  // sorts them by size (items.sort(key=itemgetter(0)), stable); write_data queues a file for every bucket
  // of _split_by_size_and_type, [items] with one thread even when items is empty.
  const TransformerSpec s = spec_of(tiny_model());
  const auto files =
      plan_checkpoint_files(s, ReplicaWriter::kFirst, CheckpointLayoutKind::kDcp, 1, 1, false, false, true);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].path, "__0_0.distcp");
  EXPECT_EQ(files[0].bytes, 3528u);
  // Sizes ascending; among equal sizes the plan's order: the 8-byte norm weights first, attn_norm's.
  std::vector<uint64_t> sizes;
  for (const FileRecord& rec : files[0].records) sizes.push_back(rec.bytes);
  EXPECT_TRUE(std::is_sorted(sizes.begin(), sizes.end()));
  EXPECT_EQ(sizes.front(), 8u);
  EXPECT_EQ(sizes.back(), 160u);
  EXPECT_EQ(files[0].records.front().tensor, "layers.0.attn_norm.weight");
  EXPECT_EQ(files[0].records[1].tensor, "layers.0.mlp_norm.weight");
  // Rank 1 writes nothing under "first", and still has its (empty) file.
  EXPECT_EQ(files[1].path, "__1_0.distcp");
  EXPECT_EQ(files[1].bytes, 0u);
  EXPECT_TRUE(files[1].records.empty());
}

TEST(CheckpointFiles, MegatronWritesAFolderPerTensorAndPipelineRank) {
  const TransformerSpec s = spec_of(small_model({{"pipeline", 2}, {"zero", 1}}));
  const auto files = plan_checkpoint_files(s, ReplicaWriter::kFirst, CheckpointLayoutKind::kMegatron, 1, 1, false);
  std::set<std::string> names;
  for (const auto& f : files) names.insert(f.path);
  EXPECT_EQ(names, (std::set<std::string>{"mp_rank_00_000/model_optim_rng.pt", "mp_rank_00_000/distrib_optim.pt",
                                          "mp_rank_01_000/model_optim_rng.pt", "mp_rank_01_000/distrib_optim.pt",
                                          "mp_rank_00_001/model_optim_rng.pt", "mp_rank_00_001/distrib_optim.pt",
                                          "mp_rank_01_001/model_optim_rng.pt", "mp_rank_01_001/distrib_optim.pt"}));
  for (const auto& f : files) {
    // Written by the group's first data-parallel rank: planned ranks 0..3 of 8.
    EXPECT_LT(f.plan_rank, 4u) << f.path;
    if (f.path.ends_with("distrib_optim.pt")) {
      // Master weights first, each state's tensors in reverse order (Megatron's grad buffers).
      EXPECT_NE(f.records.front().tensor.find(".master"), std::string::npos) << f.records.front().tensor;
      EXPECT_FALSE(f.records.front().weights);
    } else {
      EXPECT_TRUE(std::all_of(f.records.begin(), f.records.end(), [](const FileRecord& r) { return r.weights; }));
    }
  }
  // Stage 1 of 2 holds the output layer; stage 0 the embedding.
  const auto& first = *std::find_if(files.begin(), files.end(), [](const PlannedFile& f) {
    return f.path == "mp_rank_00_001/distrib_optim.pt";
  });
  EXPECT_EQ(first.records.front().tensor, "output.master");
  // Without the distributed optimizer, one file a folder holds it all.
  const auto zero0 = plan_checkpoint_files(spec_of(small_model()), ReplicaWriter::kFirst,
                                           CheckpointLayoutKind::kMegatron, 1, 1, false);
  ASSERT_EQ(zero0.size(), 2u);
  EXPECT_EQ(zero0[0].path, "mp_rank_00/model_optim_rng.pt");
}

TEST(CheckpointFiles, MegatronWritesTheDistributedOptimizerFirst) {
  // NVIDIA/Megatron-LM megatron/training/checkpointing.py (commit 0032978), save_checkpoint: the block
  // "Save distributed optimizer's custom parameter state." (optimizer.save_parameter_state into
  // distrib_optim.pt) comes before torch.save of model_optim_rng.pt.
  const TransformerSpec s = spec_of(small_model({{"zero", 1}}));
  const auto files =
      plan_checkpoint_files(s, ReplicaWriter::kFirst, CheckpointLayoutKind::kMegatron, 1, 1, false);
  ASSERT_EQ(files.size(), 4u);  // 2 tensor ranks x (distrib_optim, model_optim_rng)
  EXPECT_EQ(files[0].path, "mp_rank_00/distrib_optim.pt");
  EXPECT_EQ(files[1].path, "mp_rank_00/model_optim_rng.pt");
  EXPECT_EQ(files[2].path, "mp_rank_01/distrib_optim.pt");
  EXPECT_EQ(files[3].path, "mp_rank_01/model_optim_rng.pt");
}

TEST(CheckpointFiles, ScaleCutsEveryTensorAtTheSamePlacesWhateverTheParallelism) {
  const double scale = 7;
  for (const char* name : {"layers.1.mlp.down.exp_avg", "embedding.weight", "layers.0.attn_norm.weight"}) {
    for (const json& par : {json{{"tensor", 2}, {"data", 2}, {"zero", 3}}, json{{"tensor", 1}, {"data", 4}, {"zero", 3}},
                            json{{"tensor", 4}, {"data", 1}, {"zero", 0}}}) {
      const TransformerSpec s = spec_of(small_model(par));
      uint64_t at = 0;
      std::vector<std::pair<uint64_t, uint64_t>> spans;
      uint64_t whole = 0;
      for (const auto& rank : all_rank_tensors(s, ReplicaWriter::kFirst)) {
        for (const RankTensor& t : rank) {
          if (tensor_name(t) != name) continue;
          const ScaledSpan sp = scaled_span(t, scale);
          spans.emplace_back(sp.offset, sp.bytes);
          whole = t.whole * t.dtype_bytes;
        }
      }
      std::sort(spans.begin(), spans.end());
      for (const auto& [off, bytes] : spans) {
        EXPECT_EQ(off, at) << name << " " << par.dump();
        at += bytes;
      }
      EXPECT_EQ(at, static_cast<uint64_t>(whole / scale)) << name << " " << par.dump();
    }
  }
}

TEST(TensorContent, ASliceIsTheSameBytesAsTheWholeAndChangesAreFound) {
  std::vector<unsigned char> whole(20000), part(3001);
  fill_tensor_bytes(1, 2, 99, 0, whole.data(), whole.size());
  fill_tensor_bytes(1, 2, 99, 4095, part.data(), part.size());
  EXPECT_TRUE(std::equal(part.begin(), part.end(), whole.begin() + 4095));
  uint64_t bad = 0;
  EXPECT_TRUE(check_tensor_bytes(1, 2, 99, 4095, part.data(), part.size(), &bad));
  part[1234] ^= 1;
  EXPECT_FALSE(check_tensor_bytes(1, 2, 99, 4095, part.data(), part.size(), &bad));
  EXPECT_EQ(bad, 4095u + 1234);
  // Another step, tensor or seed: other bytes.
  std::vector<unsigned char> other(whole.size());
  fill_tensor_bytes(1, 3, 99, 0, other.data(), other.size());
  EXPECT_NE(other, whole);
  // No 512-byte sector repeats (dedup cannot shrink it).
  std::vector<unsigned char> big(1 << 20);
  fill_tensor_bytes(5, 1, 7, 0, big.data(), big.size());
  std::set<std::string> sectors;
  for (size_t i = 0; i < big.size(); i += 512) sectors.emplace(reinterpret_cast<char*>(&big[i]), 512);
  EXPECT_EQ(sectors.size(), big.size() / 512);
}

json dcp_params(json extra = json::object()) {
  json p = {{"model", small_model({{"zero", 1}})}, {"layout", "dcp"}, {"count", 1},      {"gap", 0},
            {"workers", 2},                       {"block_size", "4KiB"}, {"queue_depth", 4}, {"engine", "psync"}};
  for (auto& [k, v] : extra.items()) p[k] = v;
  return p;
}

TEST(DcpCheckpoint, WritesRankFilesAndItsMetadataLastAndShowsTheSkew) {
  PhaseHarness h;
  PhaseResult r;
  // framing "none": the files hold the plan's bytes alone, so the skew is the plan's exactly.
  Status s = h.run("checkpoint", "ckpt", dcp_params({{"replica_writer", "first"}, {"framing", "none"}}), &r);
  ASSERT_TRUE(s.ok()) << s.message();
  const std::string step = h.path() + "/ckpt/step-1";
  EXPECT_TRUE(fs::exists(step + "/.metadata"));
  EXPECT_FALSE(fs::exists(step + "/manifest.json"));
  EXPECT_FALSE(fs::exists(step + "/.metadata.tmp"));
  Manifest m;
  ASSERT_TRUE(parse_manifest(read_file(step + "/.metadata"), &m).ok());
  EXPECT_EQ(m.layout, CheckpointLayoutKind::kDcp);
  ASSERT_EQ(m.shards.size(), 4u);
  // The metadata was written after every rank's data: its mtime is not before any data file's.
  const auto meta_time = fs::last_write_time(step + "/.metadata");
  for (const ShardEntry& e : m.shards) {
    EXPECT_TRUE(e.name.starts_with("__") && e.name.ends_with("_0.distcp")) << e.name;
    EXPECT_EQ(fs::file_size(step + "/" + e.name), e.bytes);
    EXPECT_FALSE(e.records.empty());
    EXPECT_LE(fs::last_write_time(step + "/" + e.name), meta_time) << e.name;
  }
  const ModelPlan plan = plan_model(spec_of(small_model({{"zero", 1}})), ReplicaWriter::kFirst);
  EXPECT_DOUBLE_EQ(r.metrics["rank_bytes_skew"], plan.skew());
  EXPECT_GT(r.metrics["rank_bytes_skew"], 1.0);
  EXPECT_EQ(r.details["model"]["plan_rank_bytes"].size(), 4u);
  EXPECT_EQ(r.details["layout"]["commit_file"], ".metadata");

  // Spread lowers the skew of the same model.
  PhaseHarness h2;
  PhaseResult r2;
  ASSERT_TRUE(h2.run("checkpoint", "ckpt", dcp_params({{"replica_writer", "spread"}}), &r2).ok());
  EXPECT_LT(r2.metrics["rank_bytes_skew"], r.metrics["rank_bytes_skew"]);
}

TEST(DcpCheckpoint, AnEmptyRankCreatesItsFileAndTheDefaultIsBalanced) {
  PhaseHarness h;
  PhaseResult r;
  json p = dcp_params({{"model", tiny_model()}, {"replica_writer", "first"}, {"framing", "none"}});
  Status s = h.run("checkpoint", "ckpt", p, &r, true);
  ASSERT_TRUE(s.ok()) << s.message();
  const std::string step = h.path() + "/ckpt/step-1";
  ASSERT_TRUE(fs::exists(step + "/__1_0.distcp"));
  EXPECT_EQ(fs::file_size(step + "/__1_0.distcp"), 0u);
  EXPECT_EQ(fs::file_size(step + "/__0_0.distcp"), 3528u);
  // Restores read it back, whole files and tensor by tensor, every byte verified.
  PhaseResult whole, tensors;
  s = h.run("restore", "whole", {{"checkpoint", "ckpt"}, {"engine", "psync"}, {"fanout", 1}}, &whole, true);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(whole.metrics["corrupt_shards"], 0);
  s = h.run("restore", "tensors", {{"checkpoint", "ckpt"}, {"engine", "psync"}, {"read", "tensors"}},
            &tensors, true);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(tensors.metrics["corrupt_shards"], 0);
  // Without replica_writer, layout dcp plans as DCP does now.
  PhaseHarness h2;
  PhaseResult r2;
  p.erase("replica_writer");
  ASSERT_TRUE(h2.run("checkpoint", "ckpt", p, &r2).ok());
  EXPECT_EQ(r2.details["model"]["replica_writer"], "balanced");
  EXPECT_EQ(r2.details["model"]["plan_rank_bytes"], json({1808, 1720}));
}

TEST(DcpCheckpoint, ACrashBeforeMetadataLeavesNoRestorableCheckpoint) {
  PhaseHarness h;
  h.wrap_store = [](std::unique_ptr<Store> inner) -> std::unique_ptr<Store> {
    return std::make_unique<FailingStore>(std::move(inner), ".metadata.tmp");
  };
  PhaseResult r;
  Status s = h.run("checkpoint", "ckpt", dcp_params(), &r, /*keep=*/true);
  EXPECT_FALSE(s.ok());
  // Every rank's data is there, whole and synced; only the coordinator's .metadata is missing.
  const std::string step = h.path() + "/ckpt/step-1";
  int data_files = 0;
  for (const auto& e : fs::directory_iterator(step)) {
    if (e.path().extension() == ".distcp") ++data_files;
  }
  EXPECT_EQ(data_files, 4);
  EXPECT_FALSE(fs::exists(step + "/.metadata"));
  std::unique_ptr<Store> store;
  ASSERT_TRUE(open_posix_store(h.path(), false, &store).ok());
  StepListing steps;
  ASSERT_TRUE(list_steps(*store, "ckpt", &steps).ok());
  EXPECT_TRUE(steps.committed.empty());
  EXPECT_EQ(steps.tmp, (std::vector<std::string>{"step-1"}));

  // A restore finds nothing to restore, and says why.
  h.wrap_store = nullptr;
  PhaseResult rr;
  s = h.run("restore", "restore", {{"checkpoint", "ckpt"}, {"engine", "psync"}}, &rr);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("never committed"), std::string::npos) << s.message();

  // The next checkpoint phase clears it and commits its own step 1.
  PhaseResult again;
  ASSERT_TRUE(h.run("checkpoint", "ckpt", dcp_params(), &again, true).ok());
  EXPECT_EQ(again.details["stale_tmp_removed"], 1);
  EXPECT_TRUE(fs::exists(step + "/.metadata"));
}

// iofab's durable commit (commit "durable"): step-N.tmp/ fsynced and renamed, the tracker replaced by a
// rename.
TEST(MegatronCheckpoint, FoldersPerRankAndTheTrackerNamesTheNewestStep) {
  PhaseHarness h;
  PhaseResult r;
  Status s = h.run("checkpoint", "ckpt",
                   dcp_params({{"layout", "megatron"},
                               {"commit", "durable"},
                               {"count", 2},
                               {"keep", 2},
                               {"model", small_model({{"zero", 1}, {"pipeline", 2}})}}),
                   &r, true);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(read_file(h.path() + "/ckpt/latest_checkpointed_iteration.txt"), "2");
  EXPECT_FALSE(fs::exists(h.path() + "/ckpt/latest_checkpointed_iteration.txt.tmp"));
  for (const char* f : {"mp_rank_00_000/model_optim_rng.pt", "mp_rank_01_001/distrib_optim.pt", "manifest.json"}) {
    EXPECT_TRUE(fs::exists(h.path() + "/ckpt/step-2/" + f)) << f;
  }
  EXPECT_EQ(r.details["commit"], "durable");
  EXPECT_EQ(r.details["stall_includes"], json::array({"write", "fsync", "commit"}));
  // Durable inside the stall: nothing after it.
  EXPECT_DOUBLE_EQ(r.metrics["durable_seconds_max"], r.metrics["stall_seconds_max"]);
}

// Records, in order, the files created and how many syncs of a file the store was asked for.
class SyncOrderStore final : public ForwardingStore {
 public:
  explicit SyncOrderStore(std::unique_ptr<Store> inner, std::vector<std::string>* events)
      : ForwardingStore(std::move(inner)), events_(events) {}
  Status create(std::string_view path, const OpenOptions& opts, StoreFile* out) override {
    events_->push_back("create " + std::string(path));
    return ForwardingStore::create(path, opts, out);
  }
  Status sync(const StoreFile& file) override {
    events_->push_back("sync");
    return ForwardingStore::sync(file);
  }

 private:
  std::vector<std::string>* events_;
};

// Megatron-LM's legacy save (megatron/training/checkpointing.py, save_checkpoint: checkpoint_name from
// get_checkpoint_name, 'iter_{:07d}'; torch.save of distrib_optim.pt then model_optim_rng.pt, no fsync;
// rank 0 then writes the tracker with open(tracker_filename, 'w')): the default of layout megatron. The
// stall ends unsynced; the sync after it is timed apart as durable_seconds.
TEST(MegatronCheckpoint, SavesAsMegatronInPlaceUnsyncedThenTimesTheSyncApart) {
  PhaseHarness h;
  std::vector<std::string> events;
  h.wrap_store = [&events](std::unique_ptr<Store> inner) {
    return std::make_unique<SyncOrderStore>(std::move(inner), &events);
  };
  PhaseResult r;
  Status s = h.run("checkpoint", "ckpt",
                   dcp_params({{"layout", "megatron"},
                               {"count", 2},
                               {"keep", 2},
                               {"engine", "psync"},
                               {"model", small_model({{"zero", 1}})}}),
                   &r, true);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(r.details["commit"], "megatron");
  EXPECT_EQ(r.details["stall_includes"], json::array({"write", "close", "tracker"}));
  for (const char* f : {"mp_rank_00/distrib_optim.pt", "mp_rank_01/model_optim_rng.pt", "manifest.json"}) {
    EXPECT_TRUE(fs::exists(h.path() + "/ckpt/iter_0000002/" + f)) << f;
  }
  EXPECT_FALSE(fs::exists(h.path() + "/ckpt/step-2"));
  EXPECT_FALSE(fs::exists(h.path() + "/ckpt/iter_0000002.tmp"));
  EXPECT_EQ(read_file(h.path() + "/ckpt/latest_checkpointed_iteration.txt"), "2");
  // Step 2's events: its 4 files created in place, then the manifest and the tracker, and only then the
  // syncs: the 4 files, the manifest and the tracker (6), none before the tracker.
  const auto tracker =
      std::find(events.rbegin(), events.rend(), "create ckpt/latest_checkpointed_iteration.txt");
  ASSERT_NE(tracker, events.rend());
  const auto step2 =
      std::find(events.begin(), events.end(), "create ckpt/iter_0000002/mp_rank_00/distrib_optim.pt");
  ASSERT_NE(step2, events.end());
  EXPECT_EQ(std::count(step2, tracker.base(), "sync"), 0) << "a sync inside the stall";
  EXPECT_EQ(std::count(tracker.base(), events.end(), "sync"), 6);
  EXPECT_GE(r.metrics["durable_seconds_max"], r.metrics["stall_seconds_max"]);
  ASSERT_EQ(r.details["checkpoints"].size(), 2u);
  for (const auto& cp : r.details["checkpoints"]) {
    EXPECT_GE(cp["durable_seconds"].get<double>(), cp["stall_seconds"].get<double>());
  }

  // A restore finds Megatron's iteration folders and verifies every byte.
  PhaseResult rr;
  s = h.run("restore", "restore", {{"checkpoint", "ckpt"}, {"engine", "psync"}, {"fanout", 1}, {"steps", 2}},
            &rr, true);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(rr.metrics["corrupt_shards"], 0);
  EXPECT_EQ(rr.metrics["verified_bytes"], 2 * r.metrics["checkpoint_bytes"]);
}

TEST(MegatronCheckpoint, ItsOwnCommitIsForItsLayoutAndSynchronousSavesOnly) {
  std::string err;
  EXPECT_EQ(PhaseHarness::parse("checkpoint", dcp_params({{"commit", "megatron"}}), &err), nullptr);
  EXPECT_NE(err.find("phases[0].commit"), std::string::npos) << err;
  EXPECT_EQ(PhaseHarness::parse(
                "checkpoint", dcp_params({{"layout", "megatron"}, {"commit", "megatron"}, {"mode", "async"}}),
                &err),
            nullptr);
  EXPECT_NE(err.find("phases[0].commit"), std::string::npos) << err;
  EXPECT_EQ(PhaseHarness::parse("checkpoint", dcp_params({{"layout", "megatron"}, {"commit", "soon"}}), &err),
            nullptr);
  EXPECT_NE(err.find("phases[0].commit"), std::string::npos) << err;
  // Async, Megatron's layout is committed as iofab commits: its drains end durable.
  EXPECT_NE(PhaseHarness::parse("checkpoint", dcp_params({{"layout", "megatron"}, {"mode", "async"}}), &err),
            nullptr)
      << err;
}

TEST(FolderLayout, MegatronIterationFoldersAreSteps) {
  EXPECT_EQ(megatron_iter_name(12), "iter_0000012");
  EXPECT_EQ(parse_step_dir_name("iter_0000012"), std::optional<uint64_t>(12));
  EXPECT_EQ(parse_step_dir_name("iter_12345678"), std::optional<uint64_t>(12345678));
  EXPECT_EQ(parse_step_dir_name("iter_12"), std::nullopt);
  EXPECT_EQ(parse_step_dir_name("iter_0000012.tmp"), std::nullopt);
  EXPECT_EQ(parse_step_dir_name("step-12"), std::optional<uint64_t>(12));
}

TEST(TensorRestore, ReshardingReadsSlicesAndVerifiesEveryByte) {
  PhaseHarness h;
  PhaseResult r;
  // framing "none": the files are the tensors' bytes alone, so the fractions below are the model's.
  ASSERT_TRUE(h.run("checkpoint", "ckpt", dcp_params({{"scale", 3}, {"framing", "none"}}), &r, true).ok());
  PhaseResult rr;
  Status s = h.run("restore", "restore",
                   {{"checkpoint", "ckpt"}, {"engine", "psync"}, {"workers", 2}, {"block_size", "4KiB"},
                    {"reshard_to", {{"tensor", 1}, {"data", 4}, {"zero", 3}}}},
                   &rr, true);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(rr.details["read"], "tensors");
  EXPECT_GT(rr.details["tensors"]["partial_slices"].get<uint64_t>(), 0u);
  // Every byte the new job loads was read and checked: all of the checkpoint here.
  EXPECT_EQ(rr.metrics["verified_bytes"], r.metrics["checkpoint_bytes"]);
  EXPECT_EQ(rr.metrics["read_bytes"], r.metrics["checkpoint_bytes"]);
  EXPECT_EQ(rr.metrics["corrupt_shards"], 0);

  // Weights only: the weights' share of the bytes (bf16 weights beside fp32 master and moments).
  PhaseResult rw;
  ASSERT_TRUE(h.run("restore", "weights", {{"checkpoint", "ckpt"}, {"engine", "psync"}, {"weights_only", true}},
                    &rw, true)
                  .ok());
  const double fraction = rw.details["tensors"]["fraction_of_checkpoint"];
  // ZeRO 1: both data-parallel replicas load the weights: 2 x 2 / 14 of the bytes.
  EXPECT_NEAR(fraction, 4.0 / 14, 0.01);

  // One flipped byte in the middle of a tensor: the resharding restore names the file.
  Manifest m;
  ASSERT_TRUE(parse_manifest(read_file(h.path() + "/ckpt/step-1/.metadata"), &m).ok());
  const ShardEntry& victim = m.shards[1];
  const FileRecord& rec = victim.records[victim.records.size() / 2];
  std::string bytes = read_file(h.path() + "/ckpt/step-1/" + victim.name);
  bytes[rec.file_offset + rec.bytes / 2] ^= 0x40;
  write_file(h.path() + "/ckpt/step-1/" + victim.name, bytes);
  PhaseResult bad;
  s = h.run("restore", "again",
            {{"checkpoint", "ckpt"}, {"engine", "psync"}, {"reshard_to", {{"tensor", 1}, {"data", 4}, {"zero", 3}}}},
            &bad, true);
  EXPECT_EQ(bad.metrics["corrupt_shards"], 1);
  EXPECT_NE(bad.details["bad_shards"].dump().find(victim.name), std::string::npos) << bad.details["bad_shards"];
}

TEST(TensorRestore, BadParamsNameTheField) {
  std::string err;
  EXPECT_EQ(PhaseHarness::parse("restore", {{"reshard_to", {{"layers", 3}}}}, &err), nullptr);
  EXPECT_NE(err.find("phases[0].reshard_to"), std::string::npos) << err;
  EXPECT_NE(err.find("layers"), std::string::npos) << err;
  EXPECT_EQ(PhaseHarness::parse("restore", {{"reshard_to", {{"tensor", "two"}}}}, &err), nullptr);
  EXPECT_NE(err.find("phases[0].reshard_to.tensor"), std::string::npos) << err;
  EXPECT_EQ(PhaseHarness::parse("restore", {{"weights_only", true}, {"fanout", 8}}, &err), nullptr);
  EXPECT_NE(err.find("phases[0].fanout"), std::string::npos) << err;
  EXPECT_EQ(PhaseHarness::parse("checkpoint", {{"layout", "dcp"}}, &err), nullptr);
  EXPECT_NE(err.find("phases[0].layout"), std::string::npos) << err;
  EXPECT_EQ(PhaseHarness::parse("checkpoint", {{"preset", "mlperf-llama3-8b"}, {"replica_writer", "spread"}}, &err),
            nullptr);
  EXPECT_NE(err.find("phases[0].replica_writer"), std::string::npos) << err;
  EXPECT_EQ(PhaseHarness::parse("checkpoint", dcp_params({{"layout", "megatron"}, {"replica_writer", "all"}}), &err),
            nullptr);
  EXPECT_NE(err.find("phases[0].replica_writer"), std::string::npos) << err;
  EXPECT_EQ(PhaseHarness::parse("checkpoint", dcp_params({{"layout", "shards"}, {"threads", 2}}), &err), nullptr);
  EXPECT_NE(err.find("phases[0].threads"), std::string::npos) << err;
}

}  // namespace
}  // namespace iofab::testing

namespace iofab::testing {
namespace {

// MLPerf Storage's cycle: N checkpoints written, then N read back, each from a cold cache.
TEST(RestoreSteps, ReadsBackEveryCheckpointOldestFirst) {
  PhaseHarness h;
  PhaseResult w;
  ASSERT_TRUE(h.run("checkpoint", "ckpt", dcp_params({{"count", 3}, {"keep", 3}}), &w, true).ok());
  PhaseResult r;
  Status s = h.run("restore", "restore", {{"checkpoint", "ckpt"}, {"engine", "psync"}, {"fanout", 1}, {"steps", 3}},
                   &r, true);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(r.details["passes"].size(), 3u);
  EXPECT_EQ(r.details["passes"][0]["step"], 1);
  EXPECT_EQ(r.details["passes"][2]["step"], 3);
  EXPECT_EQ(r.metrics["checkpoints_read"], 3);
  EXPECT_EQ(r.metrics["read_write_ratio"], 1);  // each checkpoint read once
  EXPECT_EQ(r.metrics["read_bytes"], 3 * w.metrics["checkpoint_bytes"]);
  EXPECT_EQ(r.metrics["verified_bytes"], r.metrics["read_bytes"]);
  double sum = 0;
  for (const auto& p : r.details["passes"]) sum += p["seconds"].get<double>();
  EXPECT_DOUBLE_EQ(r.metrics["restore_seconds"], sum);
  EXPECT_GT(r.metrics["mlperf_load_gib_per_s"], 0);
  EXPECT_GT(w.metrics["mlperf_save_gib_per_s"], 0);
  EXPECT_EQ(r.details["gap_seconds"], 0) << "none asked";
  // More steps than were kept: the error says how to keep them.
  PhaseResult more;
  s = h.run("restore", "more", {{"checkpoint", "ckpt"}, {"engine", "psync"}, {"steps", 4}}, &more, true);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("keep"), std::string::npos) << s.message();
}

// DLIO spaces its reads as its writes (time_between_checkpoints): `gap` idles between two reads, outside
// every pass's seconds.
TEST(RestoreSteps, AGapIdlesBetweenTheReadsUntimed) {
  PhaseHarness h;
  PhaseResult w;
  ASSERT_TRUE(
      h.run("checkpoint", "ckpt", dcp_params({{"count", 3}, {"keep", 3}, {"gap", "0s"}}), &w, true).ok());
  PhaseResult r;
  const auto t0 = std::chrono::steady_clock::now();
  Status s = h.run(
      "restore", "restore",
      {{"checkpoint", "ckpt"}, {"engine", "psync"}, {"fanout", 1}, {"steps", 3}, {"gap", "300ms"}}, &r, true);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_DOUBLE_EQ(r.details["gap_seconds"].get<double>(), 0.3);
  // Two gaps between three reads: the phase took at least their 0.6 s, which no pass's seconds hold.
  EXPECT_GE(wall, 0.6);
  double sum = 0;
  for (const auto& p : r.details["passes"]) sum += p["seconds"].get<double>();
  EXPECT_LE(sum, wall - 0.6);
  std::string err;
  EXPECT_EQ(PhaseHarness::parse("restore", {{"checkpoint", "ckpt"}, {"gap", "soon"}}, &err), nullptr);
  EXPECT_NE(err.find("phases[0].gap"), std::string::npos) << err;
}

}  // namespace
}  // namespace iofab::testing
