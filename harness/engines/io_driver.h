// IoDriver: the submit-and-complete core that IoPump and InOrderReader share,
// so that short transfers, kBusy answers, synchronous completions, errors and
// the drain after an error are handled once, the same way for both.
//
// The driver owns one Engine's slots; a slot carries one I/O at a time. The
// caller decides what to issue and what to do with a finished I/O: issue()
// starts an I/O, and every call that handles completions appends the slots
// whose whole I/O finished to a list the caller reads. Short transfers are
// resubmitted for the rest; what the engine answers kBusy is queued again,
// oldest first, by retry_busy(). The first error (an errno, an I/O that
// moved 0 bytes, a failed commit) makes failed() true and is kept in error(),
// which names the failed I/O: its op, its bytes and its true file offset,
// past whatever a short transfer already moved. After an error completions
// are still reaped (the kernel may be using the buffers) but no longer handled.
// Latency is per I/O, from issue() to its last completion being handled.
//
// Thread-safety: one driver per worker thread, like the Engine it drives.
#pragma once

#include <time.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "harness/core/status.h"
#include "harness/engines/engine.h"
#include "harness/stats/histogram.h"
#include "harness/stats/time_series.h"

namespace iofab {

inline uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

struct IoPumpStats {
  uint64_t ios = 0;
  uint64_t bytes = 0;
};

class IoDriver {
 public:
  // slots: how many I/Os may be issued at once (slot numbers 0..slots-1).
  // zero_bytes: the end of the error for an I/O that moved 0 bytes, after
  // "<op> at offset N " (a writer and a reader explain it differently).
  // t0_ns: the phase start, for the time series. latency, series and
  // progress may be null.
  IoDriver(Engine& engine, unsigned slots, std::string zero_bytes, Histogram* latency, TimeSeries* series,
           uint64_t t0_ns, std::atomic<uint64_t>* progress);
  IoDriver(const IoDriver&) = delete;
  IoDriver& operator=(const IoDriver&) = delete;

  // Forgets an earlier run's error, kBusy answers and active count; the totals stay.
  void restart();
  // Starts slot's I/O, timed from now. req.tag must be slot.
  void issue(unsigned slot, const IoRequest& req);
  // Queues again, oldest first, what the engine answered kBusy, until it answers kBusy again.
  void retry_busy();
  // Hands everything staged to the engine; a failure becomes the error.
  void commit();
  // Handles the completions queue() answered at once (a short one's rest may complete at once again).
  void complete_synchronous(std::vector<unsigned>* finished);
  // Commits, waits for at least one completion and handles what came. A failed reap is returned, not
  // kept: the engine can no longer tell about its I/O, so none of it can be drained.
  Status reap(std::vector<unsigned>* finished);

  // Some I/O waits for the engine to take it.
  bool busy() const { return !retry_.empty(); }
  // I/Os issued and not finished, failed I/O included.
  unsigned active() const { return active_; }
  bool failed() const { return !error_.ok(); }
  const Status& error() const { return error_; }
  // The slot's I/O as issued, whole.
  const IoRequest& request(unsigned slot) const { return slots_[slot].req; }
  // Totals over every I/O finished so far.
  const IoPumpStats& stats() const { return stats_; }

 private:
  struct Slot {
    IoRequest req;  // as issued
    uint64_t start_ns = 0;
    uint32_t moved = 0;  // bytes done so far (short transfers)
  };

  // Queues what is left of slot's I/O; false when the engine answered kBusy.
  bool queue_rest(unsigned slot);
  void complete(const IoCompletion& c, std::vector<unsigned>* finished);
  void fail(Status st);

  Engine& engine_;
  const std::string zero_bytes_;
  Histogram* latency_;
  TimeSeries* series_;
  uint64_t t0_ns_;
  std::atomic<uint64_t>* progress_;
  std::vector<Slot> slots_;
  std::deque<unsigned> retry_;           // slots whose I/O the engine answered kBusy, oldest first
  std::vector<IoCompletion> sync_done_;  // completions queue() answered at once, not yet handled
  std::vector<IoCompletion> reaped_;
  unsigned active_ = 0;
  IoPumpStats stats_;
  Status error_;
};

}  // namespace iofab
