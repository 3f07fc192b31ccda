// Every phase kind reports its untimed setup (PhaseResult::setup_seconds): what a user waits for before the
// measured window (files created, a source written), and no part of what the phase measures.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "forwarding_store.h"
#include "phase_harness.h"
#include "small_checkpoint.h"
#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

// Every create waits delay before the real store's: a filesystem slow to make files.
class SlowCreateStore final : public ForwardingStore {
 public:
  SlowCreateStore(std::unique_ptr<Store> inner, milliseconds delay)
      : ForwardingStore(std::move(inner)), delay_(delay) {}
  Status create(std::string_view path, const OpenOptions& opts, StoreFile* out) override {
    std::this_thread::sleep_for(delay_);
    return ForwardingStore::create(path, opts, out);
  }

 private:
  milliseconds delay_;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Ingest creates its files before the barrier: a slow create is setup, never write time.
TEST(SetupSeconds, AnIngestsSlowFileCreationIsSetupNotWriteTime) {
  constexpr milliseconds kDelay{300};
  PhaseHarness h;
  h.wrap_store = [&](std::unique_ptr<Store> s) {
    return std::make_unique<SlowCreateStore>(std::move(s), kDelay);
  };
  const json params = {{"workers", 1},           {"files_per_worker", 2}, {"file_size", "1MiB"},
                       {"block_size", "256KiB"}, {"engine", "psync"},     {"direct", false}};
  PhaseResult r;
  const auto t0 = std::chrono::steady_clock::now();
  Status s = h.run("ingest", "ingest", params, &r);
  const double wall = seconds_since(t0);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_TRUE(r.setup_seconds.has_value());
  EXPECT_GE(*r.setup_seconds, 2 * 0.3);  // two files, each created 300 ms late
  // Setup and the timed window do not overlap: together they fit in the phase's wall time, which they
  // would not if write_seconds held the creates too.
  EXPECT_LE(*r.setup_seconds + r.metrics["write_seconds"], wall);
}

// A phase that writes its own source first counts that writing as setup: the model's files (write_seconds),
// the dataset (generate_seconds).
TEST(SetupSeconds, WritingTheSourceIsPartOfTheSetup) {
  PhaseHarness h;
  PhaseResult load;
  const json model = {{"layers", 2},   {"hidden", 256}, {"ffn", 512},
                      {"vocab", 1000}, {"heads", 4},    {"kv_heads", 2}};
  Status s = h.run("model_load", "load",
                   {{"model", model},
                    {"max_shard_size", "1MB"},
                    {"workers", 2},
                    {"block_size", "64KiB"},
                    {"engine", "psync"}},
                   &load);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_TRUE(load.setup_seconds.has_value());
  EXPECT_GE(*load.setup_seconds, load.metrics["write_seconds"]);

  PhaseResult train;
  s = h.run("train_read", "train",
            {{"num_samples", 256},
             {"sample_size", "4KiB"},
             {"samples_per_shard", 64},
             {"batch_size", 16},
             {"epochs", 2},
             {"engine", "psync"}},
            &train);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_TRUE(train.setup_seconds.has_value());
  EXPECT_GE(*train.setup_seconds, train.metrics["generate_seconds"]);

  PhaseResult prep;
  s = h.run("prepare", "prep",
            {{"num_samples", 60},
             {"sample_size", "6KiB"},
             {"shard_size", "64KiB"},
             {"block_size", "16KiB"},
             {"engine", "psync"}},
            &prep);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_TRUE(prep.setup_seconds.has_value());
  EXPECT_GE(*prep.setup_seconds, prep.metrics["generate_seconds"]);
}

// The kinds that read or write files without a source of their own: each names its setup too.
TEST(SetupSeconds, CheckpointRestoreAndMetadataReportTheirs) {
  PhaseHarness h;
  PhaseResult ckpt, restore, md;
  Status s = h.run("checkpoint", "checkpoint", small_checkpoint(), &ckpt);
  ASSERT_TRUE(s.ok()) << s.message();
  s = h.run("restore", "restore", {{"workers", 2}, {"block_size", "256KiB"}, {"engine", "psync"}}, &restore);
  ASSERT_TRUE(s.ok()) << s.message();
  s = h.run("metadata", "md", {{"files_per_rank", 20}, {"steps", {"create", "stat"}}}, &md);
  ASSERT_TRUE(s.ok()) << s.message();
  for (const PhaseResult* r : {&ckpt, &restore, &md}) {
    ASSERT_TRUE(r->setup_seconds.has_value());
    EXPECT_GE(*r->setup_seconds, 0);
  }
}

}  // namespace
}  // namespace iofab::testing
