#include "workloads/checkpoint/checkpoint_phase.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "harness/forwarding_engine.h"
#include "workloads/phase_harness.h"
#include "workloads/slow_write_engine.h"
#include "workloads/small_checkpoint.h"
#include "workloads/checkpoint/budget.h"
#include "workloads/checkpoint/folder_layout.h"
#include "workloads/checkpoint/manifest.h"
#include "workloads/checkpoint/shard_layout.h"
#include "workloads/checkpoint/xxh3.h"

namespace iofab::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

uint64_t file_xxh3(const std::string& path) {
  const std::string data = read_file(path);
  return xxh3_of(data.data(), data.size());
}

TEST(CheckpointLayout, SplitsTheCheckpointOverTheWriters) {
  // GPT-3 scaled 1000x, 2 ranks x 8 GPUs, one replica of eight writes: 2 shards of 1.225e9 bytes (4 KiB
  // aligned).
  ShardLayout l = shard_layout(2.45e12, 1000, 2, 8, 0.125);
  EXPECT_EQ(l.shards, 2u);
  EXPECT_EQ(l.shard_bytes % 4096, 0u);
  EXPECT_GE(l.shard_bytes, 1'225'000'000u);
  EXPECT_LT(l.shard_bytes, 1'225'000'000u + 4096);
  EXPECT_EQ(shard_layout(3 << 20, 1, 1, 3, 1).shards, 3u);
  EXPECT_EQ(shard_layout(1, 1, 1, 1, 1).shard_bytes, 4096u);
  EXPECT_EQ(shard_layout(8 << 20, 1, 4, 2, 1).shard_bytes, 1u << 20);
  EXPECT_EQ(shard_layout(8 << 20, 1, 1, 4, 0.01).shards, 1u);  // at least one writer
  EXPECT_EQ(shard_file_name(3, 16), "shard-00003-of-00016.bin");
}

TEST(CheckpointPhase, PlannedBytesCoverKeepPlusOneCheckpoints) {
  auto p = PhaseHarness::parse("checkpoint", small_checkpoint({{"keep", 2}}));
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->planned_bytes(1), 3u * (8u << 20));
  EXPECT_EQ(p->planned_bytes(4), 3u * (8u << 20));  // 8 shards of 1 MiB
  auto q = PhaseHarness::parse("checkpoint", {{"params", 1e9}, {"scale", 1000}});
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->planned_bytes(1), 2 * shard_layout(14e9, 1000, 1, 1, 1).checkpoint_bytes());
}

TEST(CheckpointPhase, BadParamsNameTheKey) {
  struct Case {
    json params;
    std::string says;
  };
  for (const Case& c :
       {Case{{{"params", 1e9}, {"checkpoint_size", "1GiB"}}, "phases[0].checkpoint_size"},
        Case{{{"bytes_per_param", 2}}, "phases[0].bytes_per_param: applies only with params"},
        Case{{{"direct", true}, {"block_size", 512}}, "phases[0].block_size"},
        Case{{{"keep", 0}}, "phases[0].keep"}, Case{{{"mode", "lazy"}}, "phases[0].mode"},
        Case{{{"interval", "soon"}}, "phases[0].interval"}, Case{{{"scale", 0.5}}, "phases[0].scale"},
        Case{{{"writer_fraction", 0}}, "phases[0].writer_fraction"},
        Case{{{"params", "many"}}, "phases[0].params"},
        Case{{{"count", 1}, {"nosuch", 1}}, "phases[0].nosuch: unknown parameter"}}) {
    std::string errors;
    EXPECT_EQ(PhaseHarness::parse("checkpoint", c.params, &errors), nullptr) << c.params.dump();
    EXPECT_NE(errors.find(c.says), std::string::npos) << c.params.dump() << ": " << errors;
  }
}

TEST(CheckpointPhase, SyncCommitsEveryStepAndLeavesTheNewest) {
  PhaseHarness h;
  PhaseResult r;
  Status s = h.run("checkpoint", "ckpt", small_checkpoint({{"count", 3}, {"keep", 2}}), &r);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(r.metrics["checkpoints"], 3);
  EXPECT_EQ(r.metrics["shards"], 2);
  EXPECT_EQ(r.metrics["checkpoint_bytes"], 8 << 20);
  EXPECT_EQ(r.metrics["write_bytes"], 3 * (8 << 20));
  EXPECT_GT(r.metrics["write_bytes_per_s"], 0);
  EXPECT_GT(r.metrics["stall_seconds_max"], 0);
  EXPECT_LE(r.metrics["stall_seconds_mean"], r.metrics["stall_seconds_max"]);
  EXPECT_EQ(r.metrics["drain_seconds_max"], 0);
  EXPECT_GT(r.metrics["commit_seconds_max"], 0);
  EXPECT_GT(r.metrics["delete_seconds_max"], 0);
  ASSERT_EQ(r.details["checkpoints"].size(), 3u);
  EXPECT_EQ(r.details["checkpoints"][2]["deleted_checkpoints"], 1);
  // keep 2: the two newest remain, committed, and nothing half-written.
  const std::string dir = h.path() + "/ckpt";
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"step-2", "step-3"}));
  for (const char* step : {"step-2", "step-3"}) {
    EXPECT_EQ(
        entries(dir + "/" + step),
        (std::vector<std::string>{"manifest.json", "shard-00000-of-00002.bin", "shard-00001-of-00002.bin"}));
    Manifest m;
    ASSERT_TRUE(parse_manifest(read_file(dir + "/" + step + "/manifest.json"), &m).ok());
    EXPECT_EQ(m.phase, "ckpt");
    ASSERT_EQ(m.shards.size(), 2u);
    for (const auto& e : m.shards) {
      EXPECT_EQ(e.bytes, 4u << 20);
      EXPECT_EQ(fs::file_size(dir + "/" + step + "/" + e.name), 4u << 20);
      // The hash computed while writing is the hash of the bytes on disk.
      EXPECT_EQ(file_xxh3(dir + "/" + step + "/" + e.name), e.xxh3) << step << "/" << e.name;
    }
  }
  // Every checkpoint's data is its own: no dedup across steps.
  EXPECT_NE(file_xxh3(dir + "/step-2/shard-00000-of-00002.bin"),
            file_xxh3(dir + "/step-3/shard-00000-of-00002.bin"));
}

TEST(CheckpointPhase, BudgetFiguresFollowTheFormulas) {
  PhaseHarness h;
  PhaseResult r;
  // A 1e9-parameter model (14e9 bytes) written at 1/1000 of its size, hourly.
  json p = small_checkpoint({{"params", 1e9}, {"scale", 1000}, {"count", 2}});
  p.erase("checkpoint_size");
  Status s = h.run("checkpoint", "checkpoint", p, &r);
  ASSERT_TRUE(s.ok()) << s.message();
  auto& m = r.metrics;
  EXPECT_EQ(m["full_checkpoint_bytes"], 14e9);
  EXPECT_EQ(m["allowed_stall_seconds"], 180);
  EXPECT_DOUBLE_EQ(m["required_bytes_per_s"], 14e9 / 180);
  EXPECT_EQ(m["checkpoint_bytes"], static_cast<double>(shard_layout(14e9, 1000, 1, 2, 1).checkpoint_bytes()));
  EXPECT_DOUBLE_EQ(m["stall_bytes_per_s"], m["checkpoint_bytes"] / m["stall_seconds_max"]);
  EXPECT_DOUBLE_EQ(m["projected_stall_seconds"], 14e9 / m["stall_bytes_per_s"]);
  EXPECT_DOUBLE_EQ(m["budget_margin"], 180 / m["projected_stall_seconds"]);
  ASSERT_EQ(r.details["checkpoints"].size(), 2u);
  for (const auto& c : r.details["checkpoints"]) {
    EXPECT_EQ(c["budget"]["allowed_seconds"], 180);
    EXPECT_EQ(c["budget"]["full_bytes"], 14e9);
    EXPECT_EQ(c["budget"]["passed"], c["budget"]["budget_margin"].get<double>() >= 1);
  }
  EXPECT_EQ(r.details["model"]["params"], 1e9);
  EXPECT_EQ(r.details["timing"]["interval_seconds"], 3600);
  // The projection's basis as a code and a count; no prose in details (the reporters word it).
  EXPECT_EQ(r.details["budget"]["projection_basis"], "slowest_checkpoint_aggregate");
  EXPECT_EQ(r.details["budget"]["projection_writers"], r.details["layout"]["shards"]);
  EXPECT_EQ(r.details["stall_includes"], nlohmann::json::array({"write", "fsync", "commit"}));
}

TEST(CheckpointPhase, VerdictFlipsWithTheInterval) {
  PhaseHarness h;
  PhaseResult tight, loose;
  ASSERT_TRUE(h.run("checkpoint", "a", small_checkpoint({{"interval", "1ms"}}), &tight).ok());
  ASSERT_TRUE(h.run("checkpoint", "b", small_checkpoint({{"interval", "1000h"}}), &loose).ok());
  EXPECT_LT(tight.metrics["budget_margin"], 1);
  EXPECT_EQ(tight.details["budget"]["passed"], false);
  EXPECT_GT(loose.metrics["budget_margin"], 1);
  EXPECT_EQ(loose.details["budget"]["passed"], true);
  EXPECT_DOUBLE_EQ(loose.metrics["allowed_stall_seconds"], 0.05 * 3.6e6);
}

// Sync stalls training for the whole write; async only for the copy into host memory. A fixed
// delay per write (the engine decorator) makes that structural instead of a race of two equal
// costs on tmpfs: 8 writes of 1 MiB, one worker, 100 ms each.
TEST(CheckpointPhase, SyncStallHoldsTheWritesAndAsyncStallEndsBeforeTheFirstWrite) {
  constexpr auto kDelay = std::chrono::milliseconds(100);
  constexpr double kWrites = 8;
  const json common = {{"checkpoint_size", "8MiB"}, {"count", 1},        {"workers", 1}, {"block_size", "1MiB"},
                       {"queue_depth", 1},          {"engine", "psync"}, {"gap", 0}};
  json sync_p = common, async_p = common;
  async_p["mode"] = "async";

  PhaseHarness h;
  SlowWriteLog sync_log, async_log;
  const EngineMaker sync_engines = slow_write_engines(kDelay, &sync_log);
  const EngineMaker async_engines = slow_write_engines(kDelay, &async_log);
  PhaseResult sync_r, async_r;
  h.engines = &sync_engines;
  Status s = h.run("checkpoint", "sync", sync_p, &sync_r);
  ASSERT_TRUE(s.ok()) << s.message();
  h.engines = &async_engines;
  const uint64_t async_called_ns = now_ns();
  s = h.run("checkpoint", "async", async_p, &async_r);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(sync_log.writes.load(), kWrites);
  ASSERT_EQ(async_log.writes.load(), kWrites);

  const double delays = kWrites * std::chrono::duration<double>(kDelay).count();
  // The sync stall holds every write: at least 8 delays, however fast the machine.
  EXPECT_GE(sync_r.metrics["stall_seconds_mean"], delays);
  // The async drain holds them instead...
  EXPECT_GE(async_r.metrics["drain_seconds_max"], delays);
  // ...and its stall ended before the first write began: the stall is a span inside
  // [the call to run, the first write], whatever the machine's load.
  const double until_first_write = static_cast<double>(async_log.first_write_ns.load() - async_called_ns) * 1e-9;
  EXPECT_LE(async_r.metrics["stall_seconds_mean"], until_first_write);
  EXPECT_EQ(async_r.metrics["drain_overruns"], 0);
  EXPECT_EQ(async_r.metrics["checkpoints"], 1);
  EXPECT_EQ(async_r.details["mode"], "async");
  // The async checkpoint is as whole as the sync one.
  Manifest m;
  ASSERT_TRUE(parse_manifest(read_file(h.path() + "/async/step-1/manifest.json"), &m).ok());
  for (const auto& e : m.shards) EXPECT_EQ(file_xxh3(h.path() + "/async/step-1/" + e.name), e.xxh3);
}

// Records the registered buffer each write came from.
class BufferLogEngine final : public ForwardingEngine {
 public:
  BufferLogEngine(std::unique_ptr<Engine> inner, std::vector<int>* log)
      : ForwardingEngine(std::move(inner)), log_(log) {}
  QueueResult queue(const IoRequest& req, IoCompletion* done) override {
    if (req.op == IoOp::kWrite) log_->push_back(req.buf_index);
    return inner_->queue(req, done);
  }

 private:
  std::vector<int>* log_;
};

// A synchronous engine's writer makes the next block beside the write (FillAhead): at queue depth 1 two
// registered buffers take turns (one written, one being made), and the manifest's hash, taken as blocks
// are made, is that of the bytes written.
TEST(CheckpointPhase, ASynchronousEnginesBlocksAreMadeBesideTheWriteInTwoBuffersTakingTurns) {
  std::vector<int> log;
  const EngineMaker logging = [&](std::string_view name, const EngineOptions& opts,
                                  std::unique_ptr<Engine>* out) {
    std::unique_ptr<Engine> inner;
    Status s = make_engine(name, opts, &inner);
    if (s.ok()) *out = std::make_unique<BufferLogEngine>(std::move(inner), &log);
    return s;
  };
  PhaseHarness h;
  h.engines = &logging;
  PhaseResult r;
  const Status s = h.run("checkpoint", "ckpt",
                         {{"checkpoint_size", "6MiB"},
                          {"count", 1},
                          {"gap", 0},
                          {"workers", 1},
                          {"block_size", "512KiB"},
                          {"queue_depth", 1},
                          {"engine", "psync"}},
                         &r, true);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(log.size(), 12u);
  for (size_t i = 0; i < log.size(); ++i) EXPECT_EQ(log[i], static_cast<int>(i % 2)) << "write " << i;
  Manifest m;
  ASSERT_TRUE(parse_manifest(read_file(h.path() + "/ckpt/step-1/manifest.json"), &m).ok());
  ASSERT_EQ(m.shards.size(), 1u);
  EXPECT_EQ(file_xxh3(h.path() + "/ckpt/step-1/" + m.shards[0].name), m.shards[0].xxh3);
}

TEST(CheckpointPhase, AsyncCheckpointDueBeforeTheDrainEndedFails) {
  PhaseHarness h;
  PhaseResult r;
  Status s = h.run("checkpoint", "ckpt",
                   {{"checkpoint_size", "64MiB"},
                    {"count", 2},
                    {"gap", 0},
                    {"mode", "async"},
                    {"engine", "psync"},
                    {"block_size", "256KiB"}},
                   &r);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("started before the previous one had drained"), std::string::npos)
      << s.message();
  EXPECT_EQ(r.metrics["drain_overruns"], 1);
  EXPECT_EQ(r.metrics["checkpoints"], 2);  // still committed, whole
  EXPECT_EQ(r.details["checkpoints"][0]["drained_before_next"], false);
  EXPECT_EQ(r.details["checkpoints"][0]["budget"]["passed"], false);
}

TEST(CheckpointPhase, WriterFractionLeavesWorkersIdle) {
  PhaseHarness h;
  PhaseResult r;
  ASSERT_TRUE(h.run("checkpoint", "ckpt", small_checkpoint({{"workers", 4}, {"writer_fraction", 0.5}}), &r).ok());
  EXPECT_EQ(r.metrics["shards"], 2);
  EXPECT_EQ(entries(h.path() + "/ckpt/step-1").size(), 3u);  // 2 shards + manifest
}

TEST(CheckpointPhase, InterruptedMidWriteLeavesOnlyATmpThatTheNextRunRemoves) {
  PhaseHarness h;
  const std::string dir = h.path() + "/ckpt";
  // Ctrl-C once the shard is partly written.
  std::thread watcher([&] {
    const std::string shard = dir + "/step-1.tmp/shard-00000-of-00001.bin";
    for (int i = 0; i < 200000 && !h.stop.load(); ++i) {
      std::error_code ec;
      if (fs::exists(shard, ec) && fs::file_size(shard, ec) > 0) h.stop.store(true);
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  });
  PhaseResult r;
  Status s = h.run("checkpoint", "ckpt",
                   {{"checkpoint_size", "1GiB"},
                    {"count", 1},
                    {"engine", "psync"},
                    {"block_size", "64KiB"},
                    {"queue_depth", 1}},
                   &r, /*keep=*/true);
  h.stop.store(true);
  watcher.join();
  EXPECT_EQ(s.code(), Status::Code::kInterrupted) << s.message();
  // Whole or absent: no step-1/, only the .tmp (kept because of --keep).
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"step-1.tmp"}));
  EXPECT_LT(fs::file_size(dir + "/step-1.tmp/shard-00000-of-00001.bin"), 1u << 30);
  EXPECT_FALSE(fs::exists(dir + "/step-1.tmp/manifest.json"));

  // The next run in this folder removes the stale .tmp before it writes.
  h.stop.store(false);
  PhaseResult again;
  s = h.run("checkpoint", "ckpt", small_checkpoint(), &again);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(again.details["stale_tmp_removed"], 1);
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"step-1"}));
}

TEST(CheckpointPhase, StepsContinueAfterCommittedOnes) {
  PhaseHarness h;
  PhaseResult r1, r2;
  ASSERT_TRUE(h.run("checkpoint", "ckpt", small_checkpoint({{"count", 2}}), &r1).ok());
  ASSERT_TRUE(h.run("checkpoint", "ckpt", small_checkpoint({{"count", 1}}), &r2).ok());
  EXPECT_EQ(r2.details["checkpoints"][0]["step"], 3);
  EXPECT_EQ(entries(h.path() + "/ckpt"), (std::vector<std::string>{"step-3"}));
}

}  // namespace
}  // namespace iofab::testing
