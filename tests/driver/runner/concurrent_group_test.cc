// Running a concurrent group, with phases made for the test: the clock ends its followers, windows reach
// the phases beside the one that posts them, the start gate holds and releases, a phase that fails
// early holds nobody, and solo runs happen alone in folders of their own that are removed after.
#include "driver/runner/concurrent_group.h"

#include <atomic>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "comm_fakes.h"
#include "harness/store/memory_store.h"

namespace iofab {
namespace {

const std::vector<MetricInfo>& no_metrics() {
  static const std::vector<MetricInfo> kNone;
  return kNone;
}

constexpr std::string_view kSoloMetrics[] = {"rate"};

// What a test phase saw while it ran.
struct Seen {
  std::atomic<int> runs{0};
  std::string name;
  bool had_until = false;
  bool ended_by_clock = false;
  bool had_windows = false;
  std::vector<TimeWindow> windows;
  bool windows_complete = false;
  const Comm* comm = nullptr;
  std::atomic<uint64_t> loops{0};

  // What every test phase notes as it starts.
  void start(const PhaseContext& ctx) {
    runs++;
    name = ctx.phase_name;
    comm = &ctx.comm;
    had_until = ctx.until != nullptr;
    had_windows = ctx.windows != nullptr;
  }
};

// Posts one drain window, then ends once the follower has looped at least once (so they overlap
// without a timed wait).
class ClockPhase final : public Phase {
 public:
  ClockPhase(Seen* seen, const std::atomic<uint64_t>* follower_loops) : seen_(seen), follower_loops_(follower_loops) {}
  std::optional<uint64_t> planned_bytes(int) const override { return 0; }
  Status run(PhaseContext& ctx, PhaseResult* result) override {
    seen_->start(ctx);
    Status made = ctx.store->make_folder(ctx.phase_name);
    if (!made.ok()) return made;
    if (ctx.ready_to_start) ctx.ready_to_start();
    if (ctx.windows != nullptr) {
      ctx.windows->publish("drain", 100, 200);
      while (follower_loops_->load() == 0 && !ctx.stop.load()) std::this_thread::yield();
    }
    result->metrics["rate"] = ctx.windows != nullptr ? 50 : 100;  // half as fast beside the follower
    return Status::Ok();
  }

 private:
  Seen* seen_;
  const std::atomic<uint64_t>* follower_loops_;
};

// Loops until the clock ends (or, alone, once); then reads the windows.
class FollowerPhase final : public Phase {
 public:
  explicit FollowerPhase(Seen* seen) : seen_(seen) {}
  std::optional<uint64_t> planned_bytes(int) const override { return 0; }
  Status run(PhaseContext& ctx, PhaseResult* result) override {
    seen_->start(ctx);
    if (ctx.ready_to_start) ctx.ready_to_start();
    do {
      seen_->loops++;
      std::this_thread::yield();
    } while (ctx.until != nullptr && !ctx.until->load() && !ctx.stop.load());
    seen_->ended_by_clock = ctx.until != nullptr && ctx.until->load();
    if (ctx.windows != nullptr) seen_->windows = ctx.windows->wait_all(ctx.stop, &seen_->windows_complete);
    result->metrics["rate"] = 10;
    return Status::Ok();
  }

 private:
  Seen* seen_;
};

// Fails at once, before it is set up.
class FailingPhase final : public Phase {
 public:
  std::optional<uint64_t> planned_bytes(int) const override { return 0; }
  Status run(PhaseContext&, PhaseResult*) override { return Status::IoError("no disk today"); }
};

// Fails alone (its folder NAME.solo), passes beside the others: as a name of 251+ bytes did, whose
// "NAME.solo" folder is past a file name's 255 bytes.
class FailsAlonePhase final : public Phase {
 public:
  explicit FailsAlonePhase(Seen* seen) : seen_(seen) {}
  std::optional<uint64_t> planned_bytes(int) const override { return 0; }
  Status run(PhaseContext& ctx, PhaseResult* result) override {
    if (ctx.ready_to_start) ctx.ready_to_start();
    if (ctx.phase_name.ends_with(".solo"))
      return Status::IoError("mkdir " + ctx.phase_name + ": File name too long");
    seen_->loops++;  // the clock waits for a loop of its follower
    result->metrics["rate"] = 1;
    return Status::Ok();
  }

 private:
  Seen* seen_;
};

const PhaseKind kClockKind{"clock", "", nullptr, &no_metrics, nullptr, "", "", false, false, true, true,
                           kSoloMetrics};
const PhaseKind kFollowerKind{"follower", "", nullptr, &no_metrics, nullptr, "", "", false, true, false, true,
                              kSoloMetrics};
const PhaseKind kFailingKind{"failing", "", nullptr, &no_metrics};

struct Fixture {
  Seen clock_seen, follower_seen;
  std::vector<PhaseSpec> phases;
  PhaseGroup group;
  SelfComm comm;
  MemoryStore store;
  TargetInfo target;
  std::string location = "memory";
  std::atomic<bool> stop{false};

  explicit Fixture(bool with_failing = false) {
    PhaseSpec f;
    f.name = "loader";
    f.kind = &kFollowerKind;
    f.phase = std::make_unique<FollowerPhase>(&follower_seen);
    f.group = 0;
    phases.push_back(std::move(f));
    PhaseSpec c;
    c.name = "ckpt";
    c.kind = with_failing ? &kFailingKind : &kClockKind;
    if (with_failing) {
      c.phase = std::make_unique<FailingPhase>();
    } else {
      c.phase = std::make_unique<ClockPhase>(&clock_seen, &follower_seen.loops);
    }
    c.group = 0;
    phases.push_back(std::move(c));
    group.first = 0;
    group.count = 2;
    group.clock = 1;
    group.label = "loader + ckpt";
  }
  GroupRun run() { return GroupRun{comm, group, phases, location, target, stop, &store, false, false}; }
};

TEST(ConcurrentGroup, TheClockEndsItsFollowerAndWindowsReachIt) {
  Fixture fx;
  fx.group.solo = false;
  std::vector<MemberOutcome> out(2);
  bool started = false;
  run_group_together(fx.run(), &out, [&] { started = true; });
  EXPECT_TRUE(started);
  ASSERT_TRUE(out[0].status.ok()) << out[0].status.message();
  ASSERT_TRUE(out[1].status.ok()) << out[1].status.message();
  EXPECT_TRUE(fx.follower_seen.had_until);
  EXPECT_TRUE(fx.follower_seen.ended_by_clock);
  EXPECT_GE(fx.follower_seen.loops.load(), 1u);
  ASSERT_EQ(fx.follower_seen.windows.size(), 1u);
  EXPECT_EQ(fx.follower_seen.windows[0].kind, "drain");
  EXPECT_EQ(fx.follower_seen.windows[0].end_ns, 200u);
  EXPECT_TRUE(fx.follower_seen.windows_complete);
  // Each ran on a Comm of its own, not the group's.
  EXPECT_NE(fx.follower_seen.comm, &fx.comm);
  EXPECT_NE(fx.clock_seen.comm, &fx.comm);
  EXPECT_NE(fx.follower_seen.comm, fx.clock_seen.comm);
  EXPECT_EQ(fx.clock_seen.name, "ckpt");
  EXPECT_EQ(fx.follower_seen.name, "loader");

  PhaseReport pr;
  add_group_figures(fx.run(), 0, out[0], &pr);
  EXPECT_EQ(pr.details["concurrent"]["group"], "loader + ckpt");
  EXPECT_EQ(pr.details["concurrent"]["clock"], "ckpt");
  EXPECT_TRUE(pr.details["concurrent"]["follows_clock"].get<bool>());
  EXPECT_FALSE(pr.details["concurrent"]["solo"]["ran"].get<bool>());
  EXPECT_FALSE(pr.metrics.contains("rate_solo"));
}

TEST(ConcurrentGroup, SoloRunsGoFirstAloneInTheirOwnFoldersAndSetTheSoloFigures) {
  Fixture fx;
  std::vector<MemberOutcome> out(2);
  run_group_solo(fx.run(), &out);
  EXPECT_EQ(fx.clock_seen.runs.load(), 1);
  EXPECT_EQ(fx.clock_seen.name, "ckpt.solo");
  EXPECT_FALSE(fx.clock_seen.had_windows);
  EXPECT_FALSE(fx.follower_seen.had_until);
  EXPECT_EQ(fx.follower_seen.loops.load(), 1u);  // alone, it ran its own course: once
  EntryInfo info;
  ASSERT_TRUE(fx.store.stat("ckpt.solo", &info).ok());
  EXPECT_EQ(info.kind, EntryKind::kMissing) << "the solo run's folder is removed after it";

  run_group_together(fx.run(), &out, nullptr);
  ASSERT_TRUE(out[1].status.ok());
  PhaseReport pr;
  add_group_figures(fx.run(), 1, out[1], &pr);
  EXPECT_TRUE(pr.details["concurrent"]["solo"]["passed"].get<bool>());
  EXPECT_EQ(pr.details["concurrent"]["solo"]["metrics"]["rate"], 100);
  EXPECT_EQ(pr.metrics["rate_solo"], 100);
  EXPECT_DOUBLE_EQ(pr.metrics["rate_vs_solo"].get<double>(), 0.5);
  ASSERT_TRUE(fx.store.stat("ckpt", &info).ok());
  EXPECT_EQ(info.kind, EntryKind::kFolder) << "the group's own run keeps its folder for the phase to clean";
}

TEST(ConcurrentGroup, APhaseThatFailsBeforeItIsSetUpHoldsNobodyAtTheGate) {
  Fixture fx(true);
  std::vector<MemberOutcome> out(2);
  run_group_together(fx.run(), &out, nullptr);
  EXPECT_TRUE(out[0].status.ok());
  EXPECT_EQ(out[1].status.message(), "no disk today");
  // The clock (the failing phase) ended, so the follower stopped.
  EXPECT_TRUE(fx.follower_seen.ended_by_clock);
  PhaseReport pr;
  add_group_figures(fx.run(), 1, out[1], &pr);
  EXPECT_FALSE(pr.details["concurrent"]["follows_clock"].get<bool>());
}

TEST(ConcurrentGroup, ACommThatCannotDuplicateFailsEveryPhaseWithTheReason) {
  // The base Comm's duplicate(): a Comm with no way to make another (this fake does not override it).
  Fixture fx;
  testing::ForgingComm one(fx.comm, "");
  GroupRun g{one, fx.group, fx.phases, fx.location, fx.target, fx.stop, &fx.store, false, false};
  std::vector<MemberOutcome> out(2);
  run_group_together(g, &out, nullptr);
  for (const auto& m : out) {
    EXPECT_EQ(m.status.code(), Status::Code::kUnavailable);
    EXPECT_NE(m.status.message().find("self cannot run phases at once"), std::string::npos) << m.status.message();
  }
  EXPECT_EQ(fx.follower_seen.runs.load(), 0);
}

// A phase whose solo run failed must not pass: its figures beside the others are half of what it measures.
TEST(ConcurrentGroup, APhaseWhoseSoloRunFailedEndsAsAnErrorNamingTheSoloRun) {
  Fixture fx;
  fx.phases[0].phase = std::make_unique<FailsAlonePhase>(&fx.follower_seen);
  std::vector<MemberOutcome> out(2);
  run_group_solo(fx.run(), &out);
  EXPECT_FALSE(out[0].solo_status.ok());
  run_group_together(fx.run(), &out, nullptr);
  EXPECT_EQ(out[0].status.code(), Status::Code::kIoError);
  EXPECT_EQ(out[0].status.message(), "alone (solo run): mkdir loader.solo: File name too long");
  EXPECT_TRUE(out[1].status.ok()) << out[1].status.message();
}

TEST(GroupWindows, WaitAllReturnsWhatWasPostedOnceEveryPublisherEndedOrOnStop) {
  std::atomic<bool> stop{false};
  GroupWindows w(1, 1);
  w.publish("burst", 5, 3);  // an end before the start is read as an empty window
  w.publisher_done();
  bool complete = false;
  auto got = w.wait_all(stop, &complete);
  EXPECT_TRUE(complete);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].end_ns, 5u);

  GroupWindows open(1, 2);
  stop = true;
  got = open.wait_all(stop, &complete);
  EXPECT_FALSE(complete);
  open.wait_start(stop);  // returns on stop with nobody arrived
  stop = false;
  open.arrive(0);
  open.arrive(0);
  open.arrive(1);
  open.wait_start(stop);  // everyone arrived: returns without a stop
  SUCCEED();
}

}  // namespace
}  // namespace iofab
