// The step runner against an in-process backend whose collectives take a
// known time: lanes overlap where the schedule lets them, comm goes out in
// schedule order, and an error stops the step without hanging the compute lane.
#include "workloads/collectives/step_runner.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "workloads/collectives/ddp_schedule.h"
#include "workloads/collectives/fsdp_schedule.h"

namespace iofab {
namespace {

// One rank; each collective sleeps `seconds` and records its kind.
class SleepyCollectives final : public Collectives {
 public:
  explicit SleepyCollectives(double seconds) : seconds_(seconds) {}
  std::string_view name() const override { return "sleepy"; }
  int rank() const override { return 0; }
  int size() const override { return 2; }
  MemoryKind memory() const override { return MemoryKind::kHost; }
  std::string describe() const override { return "test"; }
  Status allocate(size_t bytes, Buffer* out) override {
    *out = Buffer{std::calloc(std::max<size_t>(bytes, 1), 1), bytes, MemoryKind::kHost};
    allocated += bytes;
    return Status::Ok();
  }
  void release(Buffer* b) override {
    std::free(b->data);
    *b = Buffer{};
  }
  Status upload(const Buffer& d, const void* s, size_t n) override {
    std::memcpy(d.data, s, n);
    return Status::Ok();
  }
  Status download(void* d, const Buffer& s, size_t n) override {
    std::memcpy(d, s.data, n);
    return Status::Ok();
  }
  Status all_reduce(const Buffer&, const Buffer&, size_t, DType, RedOp) override { return call('R'); }
  Status all_gather(const Buffer&, const Buffer&, size_t, DType) override { return call('G'); }
  Status reduce_scatter(const Buffer&, const Buffer&, size_t, DType, RedOp) override { return call('S'); }
  Status broadcast(const Buffer&, size_t, DType, int) override { return call('B'); }
  Status reduce(const Buffer&, const Buffer&, size_t, DType, RedOp, int) override { return call('D'); }
  Status all_to_all(const Buffer&, const Buffer&, size_t, DType) override { return call('A'); }
  Status gather(const Buffer&, const Buffer&, size_t, DType, int) override { return call('g'); }
  Status scatter(const Buffer&, const Buffer&, size_t, DType, int) override { return call('s'); }
  Status send_recv(const Buffer&, const Buffer&, size_t, DType) override { return call('P'); }
  Status synchronize() override { return Status::Ok(); }
  Status mark(size_t) override { return Status::Ok(); }
  Status seconds_between(size_t, size_t, double* s) override {
    *s = 0;
    return Status::Ok();
  }

  std::string calls;
  int fail_at = -1;
  uint64_t allocated = 0;
  std::vector<std::chrono::steady_clock::time_point> starts;  // when each call began

 private:
  Status call(char c) {
    if (static_cast<int>(calls.size()) == fail_at) return Status::IoError("injected");
    calls += c;
    starts.push_back(std::chrono::steady_clock::now());
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds_));
    return Status::Ok();
  }
  double seconds_;
};

TEST(StepRunner, DdpOverlapsAllReduceWithBackward) {
  // 8 layers, each its own 25 MiB bucket's worth; 4 ms backward, 2 ms all-reduce.
  ModelSpec m{8ULL * (25 << 20) / 2, 8, DType::kBFloat16, DType::kBFloat16};
  DdpOptions o;
  o.first_bucket_cap = 25 << 20;
  o.backward_s = 4e-3;
  o.forward_s = 0;
  const StepSchedule s = ddp_step(m, o);
  ASSERT_EQ(s.comm.size(), 8u);
  SleepyCollectives c(2e-3);
  StepRunner r(c, s);
  ASSERT_TRUE(r.prepare().ok());
  EXPECT_EQ(c.allocated, 2ULL * (25 << 20));
  StepTiming t;
  const auto before = std::chrono::steady_clock::now();
  ASSERT_TRUE(r.run(&t).ok());
  EXPECT_EQ(c.calls, "RRRRRRRR");
  EXPECT_GE(t.compute_s, 32e-3);
  EXPECT_GE(t.comm_s, 16e-3);
  EXPECT_GE(t.step_s, 34e-3);  // compute, then the last bucket
  // Overlap, as an order of events rather than a race of durations: in series, the first
  // all-reduce could begin only after all of backward, at least compute_s after run() began.
  ASSERT_FALSE(c.starts.empty());
  EXPECT_LT(std::chrono::duration<double>(c.starts.front() - before).count(), t.compute_s);
  // ...and the last bucket's all-reduce begins only after the last layer's backward.
  EXPECT_GE(std::chrono::duration<double>(c.starts.back() - before).count(), 32e-3);
}

TEST(StepRunner, FsdpIssuesInScheduleOrder) {
  ModelSpec m{3000, 3, DType::kBFloat16, DType::kBFloat16};
  FsdpOptions o;
  o.forward_s = 1e-4;
  o.backward_s = 2e-4;
  const StepSchedule s = fsdp_step(m, o, 2);
  SleepyCollectives c(1e-4);
  StepRunner r(c, s);
  ASSERT_TRUE(r.prepare().ok());
  StepTiming t;
  ASSERT_TRUE(r.run(&t).ok());
  EXPECT_EQ(c.calls, "GGGGGGSSS");
  EXPECT_GE(t.step_s, t.compute_s);
}

TEST(StepRunner, AnErrorStopsTheStepWithoutHanging) {
  ModelSpec m{3000, 3, DType::kBFloat16, DType::kBFloat16};
  FsdpOptions o;
  o.forward_s = 1e-4;
  const StepSchedule s = fsdp_step(m, o, 2);
  SleepyCollectives c(0);
  c.fail_at = 1;
  StepRunner r(c, s);
  ASSERT_TRUE(r.prepare().ok());
  StepTiming t;
  Status st = r.run(&t);
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "injected");
  EXPECT_EQ(c.calls, "G");
}

}  // namespace
}  // namespace iofab
