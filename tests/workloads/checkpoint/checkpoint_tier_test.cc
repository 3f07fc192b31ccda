// Two-tier checkpoints (tier: two): written to local_dir, drained to the
// target in the background, committed there as a single-tier step is; the
// local folder goes with the phase. A slow shared store (slow_store.h) makes
// "the stall excludes the drain" and "a slow drain overruns" structural.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>

#include "harness/comm/comm.h"
#include "harness/fs/target.h"
#include "harness/store/memory_store.h"
#include "harness/store/posix_store.h"
#include "workloads/phase_harness.h"
#include "workloads/small_checkpoint.h"
#include "reports/phase_definitions.h"
#include "workloads/slow_store.h"
#include "test_util.h"
#include "workloads/checkpoint/checkpoint_phase.h"
#include "workloads/checkpoint/folder_layout.h"
#include "workloads/checkpoint/manifest.h"
#include "workloads/checkpoint/tier_drain.h"
#include "workloads/checkpoint/xxh3.h"
#include "workloads/phase_table.h"

namespace iofab::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using StoreWrap = std::function<std::unique_ptr<Store>(std::unique_ptr<Store>)>;

// The shared target on the disk (so recovery from it can drop its cache), the local tier on tmpfs.
class TierHarness {
 public:
  TierHarness() : target_("/var/tmp"), local_("/dev/shm") {
    EXPECT_TRUE(describe_target(target_.path(), &info_).ok());
  }

  // The checkpoint phase "ckpt" with params, its local_dir this harness's; wrap decorates the target's store.
  Status run(json params, PhaseResult* result, bool keep = false, const StoreWrap& wrap = {}) {
    params["tier"] = "two";
    params["local_dir"] = local_dir();
    std::string errors;
    auto phase = PhaseHarness::parse("checkpoint", params, &errors);
    EXPECT_NE(phase, nullptr) << errors;
    if (phase == nullptr) return Status::Invalid(errors);
    Progress progress;
    PhaseContext ctx{comm_, target_.path(), info_, stop, progress, "ckpt", keep, nullptr};
    std::unique_ptr<Store> store;
    if (Status s = open_posix_store(target_.path(), false, &store); !s.ok()) return s;
    if (wrap) store = wrap(std::move(store));
    ctx.store = store.get();
    return phase->run(ctx, result);
  }

  std::string local_dir() const { return local_.path() + "/nvme"; }
  // This run's local step folder (with --keep): local_dir/<run folder's name>/ckpt/rank-0/step-N.
  std::string local_step(uint64_t step) const {
    return local_dir() + "/" + fs::path(target_.path()).filename().string() + "/ckpt/rank-0/" +
           step_dir_name(step);
  }
  std::string shared_step(uint64_t step) const { return target_.path() + "/ckpt/" + step_dir_name(step); }

  std::atomic<bool> stop{false};

 private:
  TempDir target_;
  TempDir local_;
  TargetInfo info_;
  SelfComm comm_;
};

std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

uint64_t file_xxh3(const std::string& path) {
  const std::string data = read_file(path);
  return xxh3_of(data.data(), data.size());
}

// The committed step's manifest (commit_file: the layout's), every shard checked against it by xxh3.
Manifest verified_manifest(const std::string& step_dir, std::string_view commit_file = kCheckpointManifestName) {
  Manifest m;
  Status s = parse_manifest(read_file(step_dir + "/" + std::string(commit_file)), &m);
  EXPECT_TRUE(s.ok()) << step_dir << ": " << s.message();
  for (const auto& e : m.shards)
    EXPECT_EQ(file_xxh3(step_dir + "/" + e.name), e.xxh3) << step_dir << "/" << e.name;
  return m;
}

TEST(CheckpointTier, TargetGetsACommittedCheckpointIdenticalToTheLocalOne) {
  TierHarness h;
  PhaseResult r;
  Status s = h.run(small_checkpoint(), &r, /*keep=*/true);
  ASSERT_TRUE(s.ok()) << s.message();
  // Committed on the target as a single-tier step is: a step-N/ with its manifest, no .tmp left.
  EXPECT_EQ(entries(h.shared_step(1) + "/..").size(), 1u);
  const Manifest shared = verified_manifest(h.shared_step(1));
  ASSERT_EQ(shared.shards.size(), 2u);
  EXPECT_EQ(shared.total_bytes(), 8u << 20);
  // The local tier (kept) holds the same bytes, committed with a manifest of its own.
  const Manifest local = verified_manifest(h.local_step(1));
  ASSERT_EQ(local.shards.size(), shared.shards.size());
  for (size_t i = 0; i < shared.shards.size(); ++i) {
    EXPECT_EQ(local.shards[i].name, shared.shards[i].name);
    EXPECT_EQ(file_xxh3(h.local_step(1) + "/" + shared.shards[i].name), shared.shards[i].xxh3);
  }
  EXPECT_EQ(entries(h.local_step(1)), entries(h.shared_step(1)));
}

TEST(CheckpointTier, LocalFolderGoesWithThePhaseAndRecoveryReadsBothTiers) {
  TierHarness h;
  PhaseResult r;
  Status s = h.run(small_checkpoint({{"count", 2}, {"gap", "1ms"}}), &r);
  // A 1 ms gap may or may not hold the drain; either way both steps commit whole.
  if (!s.ok()) {
    EXPECT_NE(s.message().find("waited for the previous drain"), std::string::npos) << s.message();
  }
  EXPECT_TRUE(entries(h.local_dir()).empty()) << "left in local_dir: " << entries(h.local_dir()).front();
  EXPECT_EQ(r.metrics["checkpoints"], 2);
  verified_manifest(h.shared_step(2));
  EXPECT_FALSE(fs::exists(h.shared_step(1)));  // keep: 1 on the target, as a single-tier run
  EXPECT_EQ(r.metrics["recovery_bytes"], 8u << 20);
  EXPECT_GT(r.metrics["recovery_local_seconds"], 0);
  EXPECT_GT(r.metrics["recovery_shared_seconds"], 0);
  EXPECT_GT(r.metrics["drain_bytes_per_s"], 0);
  EXPECT_GT(r.metrics["drain_seconds_max"], 0);
  EXPECT_EQ(r.details["tier"]["recovery"]["step"], 2);
  EXPECT_EQ(r.details["tier"]["commit_file"], std::string(kCheckpointManifestName));
  EXPECT_EQ(r.details["stall_includes"], json::array({"local_write", "local_fsync", "local_commit"}));
  EXPECT_EQ(r.details["checkpoints"].size(), 2u);
  EXPECT_TRUE(r.details["checkpoints"][0].contains("drain_seconds"));
  // The reports say in words what the stall holds.
  PhaseReport pr;
  pr.kind = "checkpoint";
  pr.details = r.details;
  const std::string words = phase_definitions(pr);
  EXPECT_NE(words.find("The stall is the write of every shard into local_dir + its fsync + the local commit"),
            std::string::npos)
      << words;
  EXPECT_NE(words.find("A drain per rank copies each checkpoint from local_dir"), std::string::npos) << words;
}

// Every file the drain creates on the target waits 100 ms: the drain of two shards lasts at least
// 200 ms on any machine, and the stall, a span inside [the call to run, the first drain create],
// cannot hold any of it.
TEST(CheckpointTier, StallEndsBeforeTheDrainBegins) {
  constexpr auto kDelay = std::chrono::milliseconds(100);
  TierHarness h;
  SlowStoreLog log;
  PhaseResult r;
  const uint64_t called_ns = now_ns();
  Status s = h.run(small_checkpoint(), &r, false, [&](std::unique_ptr<Store> inner) {
    return std::make_unique<SlowStore>(std::move(inner), kDelay, &log);
  });
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(log.creates.load(), 2u);  // the two shards, the commit file not among them
  EXPECT_GE(r.metrics["drain_seconds_max"], 2 * std::chrono::duration<double>(kDelay).count());
  const double until_drain = static_cast<double>(log.first_create_ns.load() - called_ns) * 1e-9;
  EXPECT_LE(r.metrics["stall_seconds_max"], until_drain);
  EXPECT_EQ(r.metrics["drain_overruns"], 0);
  verified_manifest(h.shared_step(1));
}

// No gap and a drain of at least 2 x 200 ms: each next checkpoint is due while the previous one
// still drains. It waits for it, so every checkpoint still commits whole; the phase fails.
TEST(CheckpointTier, SlowDrainOverrunsTheNextCheckpoint) {
  constexpr auto kDelay = std::chrono::milliseconds(200);
  TierHarness h;
  SlowStoreLog log;
  PhaseResult r;
  Status s = h.run(small_checkpoint({{"count", 3}}), &r, /*keep=*/true, [&](std::unique_ptr<Store> inner) {
    return std::make_unique<SlowStore>(std::move(inner), kDelay, &log);
  });
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("each next checkpoint waited for the previous drain"), std::string::npos)
      << s.message();
  EXPECT_EQ(r.metrics["drain_overruns"], 2);
  EXPECT_EQ(r.metrics["checkpoints"], 3);
  EXPECT_EQ(r.details["checkpoints"][0]["drained_before_next"], false);
  EXPECT_EQ(r.details["checkpoints"][0]["budget"]["passed"], false);
  EXPECT_EQ(r.details["checkpoints"][2]["drained_before_next"], true);  // the last one had no next
  verified_manifest(h.shared_step(3));
  // The local tier keeps only the newest step.
  EXPECT_EQ(entries(h.local_step(3) + "/.."), std::vector<std::string>{step_dir_name(3)});
}

TEST(CheckpointTier, CtrlCDuringTheDrainLeavesNoLocalFolderAndNoCheckpoint) {
  TierHarness h;
  SlowStoreLog log;
  PhaseResult r;
  Status s = h.run(small_checkpoint(), &r, false, [&](std::unique_ptr<Store> inner) {
    return std::make_unique<SlowStore>(std::move(inner), std::chrono::milliseconds(0), &log,
                                       [&] { h.stop.store(true); });
  });
  EXPECT_EQ(s.code(), Status::Code::kInterrupted) << s.message();
  EXPECT_GE(log.creates.load(), 1u);
  EXPECT_TRUE(entries(h.local_dir()).empty());
  EXPECT_FALSE(fs::exists(h.shared_step(1)));
  EXPECT_FALSE(fs::exists(h.shared_step(1) + ".tmp"));
}

TEST(CheckpointTier, LocalDirWithoutRoomWritesNothing) {
  SmallTmpfs small_fs("16m");
  if (!small_fs.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here (needs root)";
  TempDir target("/var/tmp");
  TargetInfo info;
  ASSERT_TRUE(describe_target(target.path(), &info).ok());
  auto phase = PhaseHarness::parse("checkpoint", small_checkpoint({{"tier", "two"}, {"local_dir", small_fs.path()}}));
  ASSERT_NE(phase, nullptr);
  SelfComm comm;
  std::atomic<bool> stop{false};
  Progress progress;
  PhaseContext ctx{comm, target.path(), info, stop, progress, "ckpt", false, nullptr};
  std::unique_ptr<Store> store;
  ASSERT_TRUE(open_posix_store(target.path(), false, &store).ok());
  ctx.store = store.get();
  PhaseResult r;
  Status s = phase->run(ctx, &r);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s.message();
  EXPECT_NE(s.message().find("local_dir " + small_fs.path() + " has "), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("nothing was written"), std::string::npos) << s.message();
  EXPECT_TRUE(entries(small_fs.path()).empty());
  EXPECT_TRUE(entries(target.path() + "/ckpt").empty());
  EXPECT_EQ(r.metrics["checkpoints"], 0);
}

TEST(CheckpointTier, BadParamsNameTheField) {
  struct Case {
    json params;
    std::string says;
  };
  for (const Case& c : {
           Case{{{"tier", "three"}}, "phases[0].tier"},
           Case{{{"tier", "two"}}, "phases[0].local_dir: required with tier: two"},
           Case{{{"tier", "two"}, {"local_dir", "nvme/ckpt"}},
                "phases[0].local_dir: required with tier: two: an absolute"},
           Case{{{"local_dir", "/local/nvme"}}, "phases[0].local_dir: applies only with tier: two"},
           Case{{{"tier", "two"}, {"local_dir", "/dev/null"}}, "phases[0].local_dir: is a device"},
           Case{{{"tier", "two"}, {"local_dir", "/etc/hostname"}},
                "phases[0].local_dir: exists and is not a folder"},
           Case{{{"tier", "two"}, {"local_dir", "/local/nvme"}, {"mode", "async"}},
                "phases[0].mode: tier: two"},
       }) {
    std::string errors;
    EXPECT_EQ(PhaseHarness::parse("checkpoint", small_checkpoint(c.params), &errors), nullptr) << c.params.dump();
    EXPECT_NE(errors.find(c.says), std::string::npos) << c.params.dump() << ": " << errors;
  }
  EXPECT_NE(PhaseHarness::parse("checkpoint", small_checkpoint({{"tier", "two"}, {"local_dir", "/local/nvme"}})),
            nullptr);
  EXPECT_NE(PhaseHarness::parse("checkpoint", small_checkpoint({{"tier", "single"}})), nullptr);
}

TEST(CheckpointTier, BadParamsExit2BeforeWritingAnything) {
  TempDir dir("/dev/shm");
  const std::string suite = dir.path() + "/s.json";
  write_file(suite, R"({"phases": [{"kind": "checkpoint", "checkpoint_size": "8MiB", "tier": "two"}]})");
  const std::string target = dir.path() + "/target";
  CommandResult r = run_iofab({"run", suite, "--target", target, "--out", dir.path() + "/r.json"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("local_dir"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(target));
  EXPECT_FALSE(fs::exists(dir.path() + "/r.json"));
}

// The layouts of real writers drain as the shards do: dcp's rank files in place in step-N/ with its
// .metadata written last by the target's commit, megatron's folder per tensor-parallel rank.
TEST(CheckpointTier, DcpAndMegatronStepsCommitOnTheTargetAsTheirLayoutCommits) {
  const json model = {{"layers", 2},   {"hidden", 64}, {"ffn", 128}, {"vocab", 100}, {"heads", 4},
                      {"kv_heads", 2}, {"tensor", 2},  {"data", 2},  {"zero", 1}};
  for (const std::string layout : {"dcp", "megatron"}) {
    TierHarness h;
    PhaseResult r;
    json p = small_checkpoint({{"model", model}, {"layout", layout}, {"block_size", "4KiB"}});
    p.erase("checkpoint_size");
    Status s = h.run(p, &r, /*keep=*/true);
    ASSERT_TRUE(s.ok()) << layout << ": " << s.message();
    const std::string commit_file = layout == "dcp" ? ".metadata" : std::string(kCheckpointManifestName);
    EXPECT_EQ(r.details["tier"]["commit_file"], commit_file);
    const Manifest shared = verified_manifest(h.shared_step(1), commit_file);
    ASSERT_FALSE(shared.shards.empty()) << layout;
    // The local tier committed its step the same way, with the same bytes in the same names.
    const Manifest local = verified_manifest(h.local_step(1), commit_file);
    ASSERT_EQ(local.shards.size(), shared.shards.size()) << layout;
    for (const ShardEntry& e : shared.shards) {
      EXPECT_EQ(file_xxh3(h.local_step(1) + "/" + e.name), e.xxh3) << layout << ": " << e.name;
      if (layout == "megatron") {
        EXPECT_TRUE(e.name.starts_with("mp_rank_")) << e.name;  // a folder per tensor-parallel rank
      }
    }
    EXPECT_FALSE(fs::exists(h.shared_step(1) + ".tmp")) << layout;
    EXPECT_EQ(r.metrics["recovery_bytes"], static_cast<double>(shared.total_bytes())) << layout;
  }
}

// Writes text as the file path of store.
void put(Store& store, const std::string& path, const std::string& text) {
  StoreFile f;
  ASSERT_TRUE(store.create(path, {}, &f).ok()) << path;
  ASSERT_EQ(write(f.fd(), text.data(), text.size()), static_cast<ssize_t>(text.size())) << path;
}

std::string get(Store& store, const std::string& path) {
  StoreFile f;
  EXPECT_TRUE(store.open(path, {}, &f).ok()) << path;
  std::string out(1 << 20, '\0');
  const ssize_t n = pread(f.fd(), out.data(), out.size(), 0);
  out.resize(n < 0 ? 0 : static_cast<size_t>(n));
  return out;
}

// The drain knows no layout: every file and folder of the local step (a folder per parallel rank, as
// Megatron writes) lands in the target's step-N.tmp/, byte for byte, except the commit file, which the
// target's commit writes itself.
TEST(CheckpointTier, DrainCopiesEveryFileAndFolderButTheCommitFile) {
  MemoryStore local, shared;
  for (const char* f : {"l", "l/step-7", "l/step-7/mp_rank_00", "s"})
    ASSERT_TRUE(local.make_folder(f).ok()) << f;
  ASSERT_TRUE(shared.make_folder("s").ok());
  const std::string big(300000, 'x');  // more than one block of the drain's
  put(local, "l/step-7/__0_0.distcp", big + "tail");
  put(local, "l/step-7/mp_rank_00/model_optim_rng.pt", "weights");
  put(local, "l/step-7/" + std::string(kCheckpointManifestName), "{}");
  uint64_t bytes = 0;
  std::atomic<bool> stop{false};
  Status s = drain_step(DrainSpec{.local = &local,
                                  .local_folder = "l",
                                  .shared = &shared,
                                  .shared_folder = "s",
                                  .step = 7,
                                  .block_size = 64 << 10,
                                  .direct = false,
                                  .stop = &stop},
                        &bytes);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(bytes, big.size() + 4 + 7);
  std::vector<std::string> names;
  ASSERT_TRUE(shared.list("s/step-7.tmp", &names).ok());
  EXPECT_EQ(names, (std::vector<std::string>{"__0_0.distcp", "mp_rank_00"}));
  EXPECT_TRUE(get(shared, "s/step-7.tmp/__0_0.distcp") == big + "tail");  // not printed: 300 kB
  EXPECT_EQ(get(shared, "s/step-7.tmp/mp_rank_00/model_optim_rng.pt"), "weights");
}

TEST(CheckpointTier, DcpDrainWritesInPlaceAndLeavesTheMetadataToTheCommit) {
  MemoryStore local, shared;
  for (const char* f : {"l", "l/step-2", "s"}) ASSERT_TRUE(local.make_folder(f).ok()) << f;
  ASSERT_TRUE(shared.make_folder("s").ok());
  put(local, "l/step-2/__1_0.distcp", "rank one's tensors");
  put(local, "l/step-2/.metadata", "{}");
  uint64_t bytes = 0;
  Status s = drain_step(DrainSpec{.local = &local,
                                  .local_folder = "l",
                                  .shared = &shared,
                                  .shared_folder = "s",
                                  .step = 2,
                                  .layout = CheckpointLayoutKind::kDcp},
                        &bytes);
  ASSERT_TRUE(s.ok()) << s.message();
  std::vector<std::string> names;
  ASSERT_TRUE(shared.list("s/step-2", &names).ok());
  EXPECT_EQ(names, std::vector<std::string>{"__1_0.distcp"});
  EXPECT_EQ(get(shared, "s/step-2/__1_0.distcp"), "rank one's tensors");
  EntryInfo tmp;
  ASSERT_TRUE(shared.stat("s/step-2.tmp", &tmp).ok());
  EXPECT_EQ(tmp.kind, EntryKind::kMissing);
}

TEST(CheckpointTier, MetricsHaveDirections) {
  const PhaseKind* k = find_phase_kind("checkpoint");
  ASSERT_NE(k, nullptr);
  for (const auto& [name, better] :
       std::vector<std::pair<std::string, Better>>{{"drain_bytes_per_s", Better::kHigher},
                                                   {"recovery_local_seconds", Better::kLower},
                                                   {"recovery_shared_seconds", Better::kLower},
                                                   {"drain_overruns", Better::kLower},
                                                   {"drain_margin", Better::kHigher}}) {
    const MetricInfo* m = find_metric(*k, name);
    ASSERT_NE(m, nullptr) << name;
    EXPECT_EQ(m->better, better) << name;
  }
}

}  // namespace
}  // namespace iofab::testing
