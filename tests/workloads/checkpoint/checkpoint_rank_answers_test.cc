// What the checkpoint and restore phases make of a rank's answer that is not
// what it should be, in the middle of a real two-rank run: a clear error
// naming the rank and the field ("rank 1 sent a bad result: ..."), on the
// ranks that read it, never an exception out of a JSON accessor.
//
// The run folder is reached only through the Store: the context carries no descriptor of it.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/comm/comm.h"
#include "harness/comm/wire.h"
#include "harness/fs/target.h"
#include "harness/store/posix_store.h"
#include "workloads/phase_harness.h"
#include "test_util.h"
#include "thread_comm.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

// Another Comm, except that this rank's gathered answers that carry `key` are rewritten first:
// the other collectives of the run go through as they are.
class RewritingComm final : public Comm {
 public:
  RewritingComm(Comm& inner, std::string key, std::function<void(json&)> rewrite)
      : inner_(inner), key_(std::move(key)), rewrite_(std::move(rewrite)) {}
  std::string_view name() const override { return inner_.name(); }
  int rank() const override { return inner_.rank(); }
  int size() const override { return inner_.size(); }
  Status barrier() override { return inner_.barrier(); }
  Status broadcast(std::string* s, int root) override { return inner_.broadcast(s, root); }
  Status gather(const std::string& mine, std::vector<std::string>* all, int root) override {
    json j;
    if (!wire_decode(mine, &j) || !j.is_object() || !j.contains(key_)) return inner_.gather(mine, all, root);
    rewrite_(j);
    return inner_.gather(wire_bytes(j), all, root);
  }
  Status all_gather(double mine, std::vector<double>* all) override { return inner_.all_gather(mine, all); }
  void abort(int exit_code) override { inner_.abort(exit_code); }

 private:
  Comm& inner_;
  std::string key_;
  std::function<void(json&)> rewrite_;
};

json checkpoint_params() {
  return {{"checkpoint_size", "8MiB"}, {"count", 1},       {"gap", 0},         {"workers", 1},
          {"block_size", "256KiB"},    {"queue_depth", 4}, {"engine", "psync"}};
}

json restore_params() { return {{"workers", 1}, {"block_size", "256KiB"}, {"queue_depth", 4}}; }

class RankAnswers : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(describe_target(dir_.path(), &target_).ok()); }

  // Runs a phase of kind on two ranks in one run folder; rank 1's gathered answers that carry key
  // go through rewrite ("" rewrites nothing). Returns each rank's outcome.
  std::array<Status, 2> run(const std::string& kind, const std::string& name, const json& params,
                            const std::string& key = "", std::function<void(json&)> rewrite = nullptr) {
    std::array<Status, 2> out;
    run_ranks(2, [&](Comm& comm) {
      const auto r = static_cast<size_t>(comm.rank());
      auto phase = PhaseHarness::parse(kind, params);
      ASSERT_NE(phase, nullptr);
      std::unique_ptr<Store> store;
      ASSERT_TRUE(open_posix_store(dir_.path(), false, &store).ok());
      RewritingComm rewriting(comm, key.empty() ? "\x01none" : key, rewrite);
      Comm& used = r == 1 ? static_cast<Comm&>(rewriting) : comm;
      Progress progress;
      PhaseContext ctx{used, dir_.path(), target_, stop_, progress, name, false, nullptr};
      ctx.store = store.get();
      PhaseResult result;
      EXPECT_NO_THROW(out[r] = phase->run(ctx, &result)) << "rank " << r;
    });
    return out;
  }

  TempDir dir_{"/dev/shm"};
  TargetInfo target_;
  std::atomic<bool> stop_{false};
};

TEST_F(RankAnswers, TwoRanksCheckpointAndRestoreThroughTheStoreAlone) {
  for (const Status& s : run("checkpoint", "ckpt", checkpoint_params())) ASSERT_TRUE(s.ok()) << s.message();
  for (const Status& s : run("restore", "restore", restore_params())) EXPECT_TRUE(s.ok()) << s.message();
}

TEST_F(RankAnswers, AMalformedShardListFailsTheCommitOnEveryRank) {
  const auto st =
      run("checkpoint", "ckpt", checkpoint_params(), "shards", [](json& j) { j["shards"][0]["bytes"] = -1; });
  for (const Status& s : st) {
    EXPECT_EQ(s.code(), Status::Code::kInternal) << s.message();
    EXPECT_NE(
        s.message().find("rank 1 sent a bad checkpoint result: shards[0]: bytes: expected an integer >= 0"),
        std::string::npos)
        << s.message();
  }
}

TEST_F(RankAnswers, AMalformedCheckpointResultIsAnErrorOnRankZero) {
  const auto st = run("checkpoint", "ckpt", checkpoint_params(), "checkpoints",
                      [](json& j) { j["checkpoints"][0]["stall_ns"] = "slow"; });
  EXPECT_EQ(st[0].code(), Status::Code::kInternal);
  EXPECT_EQ(st[0].message(),
            "rank 1 sent a bad result: checkpoints[0]: stall_ns: expected an integer >= 0, got string");
  EXPECT_TRUE(st[1].ok()) << "rank 1 itself checkpointed: " << st[1].message();
}

TEST_F(RankAnswers, AMalformedRestoreResultIsAnErrorOnRankZero) {
  for (const Status& s : run("checkpoint", "ckpt", checkpoint_params())) ASSERT_TRUE(s.ok()) << s.message();
  const auto st = run("restore", "restore", restore_params(), "verified_bytes", [](json& j) {
    j["bad"] = json::array({{{"name", 7}}});
  });
  EXPECT_EQ(st[0].code(), Status::Code::kInternal);
  EXPECT_EQ(st[0].message(), "rank 1 sent a bad result: bad[0]: name: expected a string, got number");
  EXPECT_TRUE(st[1].ok()) << st[1].message();
}

}  // namespace
}  // namespace iofab::testing
