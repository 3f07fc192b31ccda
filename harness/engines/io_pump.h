// IoPump: drives one Engine at a fixed queue depth over a stream of I/Os,
// written once for every phase. Each buffer slot carries one I/O at a time;
// next() fills the next I/O for a free slot, done() hears each finished one.
// The I/O itself (short transfers, kBusy answers, errors and the drain after
// one) is IoDriver's, shared with InOrderReader; an error stops submission
// and is returned with the errno text and the failed I/O's file offset.
// Latency is per I/O, from queue() to its completion being reaped, in the
// worker's histogram. A reap that brings many completions back is handed to
// done() a few at a time, the freed slots refilled and submitted in between,
// so the device is not idle while a queue's worth of completions is handled.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "harness/engines/engine.h"
#include "harness/engines/io_buffers.h"
#include "harness/engines/io_driver.h"
#include "harness/stats/histogram.h"
#include "harness/stats/time_series.h"

namespace iofab {

// How a pump runs, by name at every call site: IoPump pump(engine, bufs, {.slots = 16, .stop = &stop}).
struct IoPumpOptions {
  unsigned slots = 1;                         // how many buffers of bufs to use: the queue depth
  bool fixed_buffers = false;                 // the buffers are registered with the engine
  Histogram* latency = nullptr;               // each I/O's latency, when given
  TimeSeries* series = nullptr;               // bytes over time from t0_ns, when given
  uint64_t t0_ns = 0;                         // the phase's start, for the time series
  std::atomic<uint64_t>* progress = nullptr;  // bytes done, for the console
  const std::atomic<bool>* stop = nullptr;    // set: submit no more, drain, return Interrupted
};

class IoPump {
 public:
  // Slots handed back between two submissions, when a reap brings many (about fio's iodepth_batch_submit:
  // fio submits each I/O as it is filled).
  static constexpr unsigned kRefillEvery = 4;

  IoPump(Engine& engine, const IoBuffers& bufs, const IoPumpOptions& o)
      : engine_(engine),
        bufs_(bufs),
        slots_(o.slots),
        fixed_(o.fixed_buffers),
        stop_(o.stop),
        sync_(engine.caps().sync),
        driver_(engine, o.slots, "moved 0 bytes (end of file or device full)", o.latency, o.series, o.t0_ns,
                o.progress) {}

  // next(unsigned slot, IoRequest& req) -> bool: req.buf, buf_index and tag
  // are set; fill file, op, offset, len (len <= bufs.size()); false = no more.
  // done(unsigned slot, const IoRequest& req) is called once the whole I/O finished.
  template <class Next, class Done>
  Status run(Next&& next, Done&& done);

  const IoPumpStats& stats() const { return driver_.stats(); }

 private:
  bool stop_requested() const { return stop_ != nullptr && stop_->load(std::memory_order_relaxed); }

  Engine& engine_;
  const IoBuffers& bufs_;
  unsigned slots_;
  bool fixed_;
  const std::atomic<bool>* stop_;
  const bool sync_;  // the engine completes each I/O inside queue()
  IoDriver driver_;
};

template <class Next, class Done>
Status IoPump::run(Next&& next, Done&& done) {
  std::vector<unsigned> free_slots;
  free_slots.reserve(slots_);
  for (unsigned i = slots_; i-- > 0;) free_slots.push_back(i);
  std::vector<unsigned> finished;
  finished.reserve(slots_);
  driver_.restart();
  bool exhausted = false;
  // Fills free slots while next() has I/O and the engine takes it.
  auto fill = [&] {
    while (!(driver_.failed() || stop_requested()) && !exhausted && !driver_.busy() && !free_slots.empty()) {
      const unsigned slot = free_slots.back();
      IoRequest req;
      req.buf = bufs_.at(slot);
      req.buf_index = fixed_ ? static_cast<int>(slot) : -1;
      req.tag = slot;
      if (!next(slot, req)) {
        exhausted = true;
        break;
      }
      free_slots.pop_back();
      driver_.issue(slot, req);
    }
  };
  // Hands the finished I/O to done(). On an asynchronous engine every kRefillEvery slots handed back are
  // refilled and submitted before the next are handled: I/Os submitted together complete together, and
  // handing a whole queue's worth back before submitting any would leave the device idle meanwhile (the
  // queue then runs in lockstep, full then empty: issue 33, 4 KiB random reads at 0.86x fio's IOPS).
  // What a refill completes at once (an engine may complete some I/O inside queue(), as the s3 engine
  // its writes) joins the list being handed back, so none is left behind when the run ends.
  auto hand_over = [&] {
    for (size_t i = 0; i < finished.size(); ++i) {
      const unsigned slot = finished[i];
      done(slot, driver_.request(slot));
      free_slots.push_back(slot);
      if (!sync_ && (i + 1) % kRefillEvery == 0) {
        fill();
        driver_.commit();
        driver_.complete_synchronous(&finished);
      }
    }
    finished.clear();
  };

  while (true) {
    const bool stopping = driver_.failed() || stop_requested();
    // Resubmit what the engine was too busy for, then fill free slots.
    if (!stopping) driver_.retry_busy();
    fill();
    // Synchronous completions first: they may free slots without any reap.
    driver_.complete_synchronous(&finished);
    hand_over();
    if (engine_.in_flight() == 0) {
      if (stopping || driver_.failed() || (exhausted && !driver_.busy())) break;
      continue;
    }
    Status st = driver_.reap(&finished);
    if (!st.ok()) return st;  // the engine cannot tell us about its I/O any more
    hand_over();
  }
  if (driver_.failed()) return driver_.error();
  if (stop_requested() && !(exhausted && !driver_.busy())) return Status::Interrupted();
  return Status::Ok();
}

}  // namespace iofab
