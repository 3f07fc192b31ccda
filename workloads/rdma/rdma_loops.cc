#include "workloads/rdma/rdma_loops.h"

#include <algorithm>
#include <chrono>
#include <string>

namespace iofab {
namespace {

using LoopClock = std::chrono::steady_clock;

double loop_seconds_since(LoopClock::time_point t) {
  return std::chrono::duration<double>(LoopClock::now() - t).count();
}

// Turns a spin that makes no progress into an error naming the peer, and a
// stop signal into Interrupted. Cheap enough to call on every empty poll:
// the clock is read once every 1024 calls.
class Watchdog {
 public:
  Watchdog(const std::atomic<bool>& stop, double stall_s, std::string what)
      : stop_(stop), stall_s_(stall_s), what_(std::move(what)), last_(LoopClock::now()) {}
  void progress() { spins_ = 0, last_ = LoopClock::now(); }
  Status idle() {
    if (++spins_ % 1024 != 0) return Status::Ok();
    if (stop_.load(std::memory_order_relaxed)) return Status::Interrupted();
    if (loop_seconds_since(last_) > stall_s_) {
      return Status::IoError(what_ + ": nothing completed for " + std::to_string(static_cast<int>(stall_s_)) +
                             " s");
    }
    return Status::Ok();
  }

 private:
  const std::atomic<bool>& stop_;
  double stall_s_;
  std::string what_;
  LoopClock::time_point last_;
  uint64_t spins_ = 0;
};

std::string what(RdmaTest test, const char* kind, int peer) {
  return "rdma " + std::string(rdma_test_name(test)) + " " + kind + " with rank " + std::to_string(peer);
}

RdmaOp bw_op(RdmaTest t) {
  return t == RdmaTest::kWrite ? RdmaOp::kWrite : t == RdmaTest::kRead ? RdmaOp::kRead : RdmaOp::kSend;
}

// Latency ping-pongs signal every work request; this keeps count of the
// unreaped ones so the send queue never overflows.
class SendReaper {
 public:
  explicit SendReaper(RdmaEndpoint& ep) : ep_(ep) {}
  uint32_t outstanding() const { return outstanding_; }
  void posted() { ++outstanding_; }
  Status reap() {
    Completion c[16];
    int n = 0;
    Status s = ep_.poll(false, 16, c, &n);
    outstanding_ -= std::min<uint32_t>(outstanding_, static_cast<uint32_t>(n));
    return s;
  }
  // Until fewer than `below` are outstanding.
  Status wait_below(uint32_t below, Watchdog& wd) {
    while (outstanding_ >= below) {
      const uint32_t before = outstanding_;
      Status s = reap();
      if (!s.ok()) return s;
      if (outstanding_ < before) {
        wd.progress();
      } else if (Status w = wd.idle(); !w.ok()) {
        return w;
      }
    }
    return Status::Ok();
  }

 private:
  RdmaEndpoint& ep_;
  uint32_t outstanding_ = 0;
};

uint64_t in_last(uint64_t size, const RdmaSpec& spec) {
  return static_cast<uint64_t>(spec.qps) * spec.slot_bytes() + size - 1;
}
uint64_t out_last(uint64_t size) { return size - 1; }

// One incoming message on the receive queue, if any; its receive is posted again at once.
Status take_receive(RdmaEndpoint& ep, bool* got) {
  Completion c;
  int n = 0;
  Status s = ep.poll(true, 1, &c, &n);
  *got = s.ok() && n == 1;
  if (*got) s = ep.post_recv(c.qp, 1);
  return s;
}

}  // namespace

Status bw_initiate(RdmaEndpoint& ep, RdmaTest test, uint64_t size, const RdmaSpec& spec, int peer,
                   const std::atomic<bool>& stop, BwMeasure* out) {
  constexpr uint64_t kOpen = UINT64_MAX;
  const size_t qps = static_cast<size_t>(spec.qps);
  const bool timed = spec.duration_s > 0;
  const bool send = test == RdmaTest::kSend;
  const uint32_t cq_mod = spec.cq_mod();
  std::vector<uint64_t> goal(qps, timed ? kOpen : spec.iters), posted(qps, 0), done(qps, 0);
  Watchdog wd(stop, spec.stall_s, what(test, "bandwidth", peer));
  Completion c[16];
  const auto t0 = LoopClock::now();
  for (;;) {
    if (timed && goal[0] == kOpen && loop_seconds_since(t0) >= spec.duration_s) {
      // Time is up: what is posted is the run, plus one marked SEND to end it for the target.
      for (size_t q = 0; q < qps; ++q) goal[q] = posted[q] + (send ? 1 : 0);
    }
    bool finished = true;
    for (size_t q = 0; q < qps; ++q) {
      while (posted[q] < goal[q]) {
        const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(cq_mod, goal[q] - posted[q]));
        if (posted[q] - done[q] + n > spec.tx_depth) break;
        const bool last = posted[q] + n == goal[q];
        const WorkBatch b{static_cast<int>(q),
                          send && last ? RdmaOp::kSendImm : bw_op(test),
                          n,
                          static_cast<uint32_t>(size),
                          true,
                          n,
                          kLastSendImm};
        Status s = ep.post(b);
        if (!s.ok()) return s;
        posted[q] += n;
      }
      finished = finished && done[q] == goal[q];
    }
    if (finished) break;
    int got = 0;
    Status s = ep.poll(false, 16, c, &got);
    if (!s.ok()) return s;
    for (int i = 0; i < got; ++i) done[static_cast<size_t>(c[i].qp)] += c[i].wr_id;
    if (got > 0) {
      wd.progress();
    } else if (Status w = wd.idle(); !w.ok()) {
      return w;
    }
  }
  out->seconds = loop_seconds_since(t0);
  out->messages = 0;
  for (uint64_t d : done) out->messages += d;
  out->bytes = out->messages * size;
  return Status::Ok();
}

Status bw_serve(const std::vector<RdmaEndpoint*>& eps, const std::vector<int>& peers, RdmaTest test,
                const RdmaSpec& spec, const std::atomic<bool>& stop) {
  if (test != RdmaTest::kSend) return Status::Ok();  // WRITE and READ never involve the target's CPU
  const size_t qps = static_cast<size_t>(spec.qps);
  std::vector<std::vector<bool>> ended(eps.size(), std::vector<bool>(qps, false));
  size_t open = eps.size() * qps;
  Watchdog wd(stop, spec.stall_s, what(test, "bandwidth", peers.empty() ? -1 : peers[0]));
  Completion c[16];
  while (open > 0) {
    bool any = false;
    for (size_t e = 0; e < eps.size(); ++e) {
      int got = 0;
      Status s = eps[e]->poll(true, 16, c, &got);
      for (int i = 0; i < got && s.ok(); ++i) {
        s = eps[e]->post_recv(c[i].qp, 1);
        if (c[i].has_imm && c[i].imm == kLastSendImm && !ended[e][static_cast<size_t>(c[i].qp)]) {
          ended[e][static_cast<size_t>(c[i].qp)] = true;
          --open;
        }
      }
      if (!s.ok()) return s;
      any = any || got > 0;
    }
    if (any) {
      wd.progress();
    } else if (Status w = wd.idle(); !w.ok()) {
      return w;
    }
  }
  return Status::Ok();
}

void lat_prepare(RdmaEndpoint& ep, uint64_t size, const RdmaSpec& spec) {
  if (ep.host_visible()) ep.poke(in_last(size, spec), 0);
}

Status lat_initiate(RdmaEndpoint& ep, RdmaTest test, uint64_t size, const RdmaSpec& spec, int peer,
                    const std::atomic<bool>& stop, Histogram* hist) {
  const bool poll_memory = test == RdmaTest::kWrite && ep.host_visible();
  const RdmaOp op = test == RdmaTest::kRead   ? RdmaOp::kRead
                    : test == RdmaTest::kSend ? RdmaOp::kSend
                    : poll_memory             ? RdmaOp::kWrite
                                              : RdmaOp::kWriteImm;
  const uint64_t n = static_cast<uint64_t>(spec.warmup) + spec.iters;
  const uint64_t watch = in_last(size, spec);
  Watchdog wd(stop, spec.stall_s, what(test, "latency", peer));
  SendReaper reaper(ep);
  const WorkBatch b{0, op, 1, static_cast<uint32_t>(size), true, 1, 0};
  for (uint64_t i = 0; i < n; ++i) {
    const uint8_t stamp = static_cast<uint8_t>(1 + i % 255);
    Status s = reaper.wait_below(spec.tx_depth, wd);
    if (!s.ok()) return s;
    if (poll_memory) ep.poke(out_last(size), stamp);
    const auto t0 = LoopClock::now();
    s = ep.post(b);
    if (!s.ok()) return s;
    if (op == RdmaOp::kRead) {
      // The read's own completion is the answer.
      Completion c;
      int got = 0;
      while (s.ok() && got == 0) {
        s = ep.poll(false, 1, &c, &got);
        if (s.ok() && got == 0) s = wd.idle();
      }
    } else {
      reaper.posted();
      bool arrived = false;
      while (s.ok() && !arrived) {
        if (poll_memory) {
          arrived = ep.peek(watch) == stamp;
        } else {
          s = take_receive(ep, &arrived);
        }
        if (s.ok() && !arrived) s = wd.idle();
      }
    }
    if (!s.ok()) return s;
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(LoopClock::now() - t0).count();
    wd.progress();
    if (i >= spec.warmup) hist->record(static_cast<uint64_t>(op == RdmaOp::kRead ? ns : (ns + 1) / 2));
    if (op != RdmaOp::kRead && (s = reaper.reap(), !s.ok())) return s;
  }
  return reaper.wait_below(1, wd);
}

Status lat_serve(const std::vector<RdmaEndpoint*>& eps, const std::vector<int>& peers, RdmaTest test,
                 uint64_t size, const RdmaSpec& spec, const std::atomic<bool>& stop) {
  if (test == RdmaTest::kRead) return Status::Ok();  // reads never involve the target's CPU
  const uint64_t n = static_cast<uint64_t>(spec.warmup) + spec.iters;
  const uint64_t watch = in_last(size, spec);
  std::vector<uint64_t> served(eps.size(), 0);
  std::vector<SendReaper> reapers;
  for (RdmaEndpoint* e : eps) reapers.emplace_back(*e);
  size_t open = eps.size();
  Watchdog wd(stop, spec.stall_s, what(test, "latency", peers.empty() ? -1 : peers[0]));
  while (open > 0) {
    bool any = false;
    for (size_t e = 0; e < eps.size(); ++e) {
      if (served[e] == n) continue;
      RdmaEndpoint& ep = *eps[e];
      const bool poll_memory = test == RdmaTest::kWrite && ep.host_visible();
      const uint8_t stamp = static_cast<uint8_t>(1 + served[e] % 255);
      bool arrived = false;
      Status s;
      if (poll_memory) {
        arrived = ep.peek(watch) == stamp;
      } else {
        s = take_receive(ep, &arrived);
      }
      if (s.ok() && arrived) {
        s = reapers[e].wait_below(spec.tx_depth, wd);
        if (s.ok() && poll_memory) ep.poke(out_last(size), stamp);
        const RdmaOp op = test == RdmaTest::kSend ? RdmaOp::kSend
                          : poll_memory           ? RdmaOp::kWrite
                                                  : RdmaOp::kWriteImm;
        if (s.ok()) s = ep.post({0, op, 1, static_cast<uint32_t>(size), true, 1, 0});
        reapers[e].posted();
        if (++served[e] == n) --open;
        any = true;
      }
      if (s.ok()) s = reapers[e].reap();
      if (!s.ok()) return s;
    }
    if (any) {
      wd.progress();
    } else if (Status w = wd.idle(); !w.ok()) {
      return w;
    }
  }
  for (auto& r : reapers) {
    if (Status s = r.wait_below(1, wd); !s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace iofab
