// IoPump: drives one Engine at a fixed queue depth over a stream of I/Os,
// written once for every phase. Each buffer slot carries one I/O at a time;
// next() fills the next I/O for a free slot, done() hears each finished one.
// Short transfers are resubmitted for the rest; an error stops submission,
// drains what is in flight (buffers must not be freed under the kernel) and
// is returned with the errno text. Latency is per I/O, from queue() to its
// completion being reaped, in the worker's histogram.
#pragma once

#include <time.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/engines/engine.h"
#include "harness/engines/io_buffers.h"
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

class IoPump {
 public:
  // slots: how many buffers of bufs to use (the queue depth). t0_ns: the
  // phase start, for the time series. progress and stop may be null.
  IoPump(Engine& engine, const IoBuffers& bufs, unsigned slots, bool fixed_buffers, Histogram* latency,
         TimeSeries* series, uint64_t t0_ns, std::atomic<uint64_t>* progress, const std::atomic<bool>* stop)
      : engine_(engine),
        bufs_(bufs),
        slots_(slots),
        fixed_(fixed_buffers),
        latency_(latency),
        series_(series),
        t0_ns_(t0_ns),
        progress_(progress),
        stop_(stop),
        state_(slots) {}

  // next(unsigned slot, IoRequest& req) -> bool: req.buf, buf_index and tag
  // are set; fill file, op, offset, len (len <= bufs.size()); false = no more.
  // done(unsigned slot, const IoRequest& req) is called once the whole I/O finished.
  template <class Next, class Done>
  Status run(Next&& next, Done&& done);

  const IoPumpStats& stats() const { return stats_; }

 private:
  struct Slot {
    IoRequest req;        // as first queued
    uint64_t start_ns = 0;
    uint32_t moved = 0;   // bytes done so far (short transfers)
  };

  // Returns false and sets error_ on failure; on success may call done.
  template <class Done>
  bool complete(const IoCompletion& c, Done& done, std::vector<unsigned>& free_slots, std::vector<unsigned>& retry);
  bool submit(unsigned slot, const IoRequest& req, std::vector<unsigned>& retry);

  Engine& engine_;
  const IoBuffers& bufs_;
  unsigned slots_;
  bool fixed_;
  Histogram* latency_;
  TimeSeries* series_;
  uint64_t t0_ns_;
  std::atomic<uint64_t>* progress_;
  const std::atomic<bool>* stop_;
  std::vector<Slot> state_;
  IoPumpStats stats_;
  Status error_;
  // Completions that queue() answered synchronously, handled in the main loop.
  std::vector<IoCompletion> sync_done_;
};

inline bool IoPump::submit(unsigned slot, const IoRequest& req, std::vector<unsigned>& retry) {
  IoCompletion c;
  switch (engine_.queue(req, &c)) {
    case QueueResult::kQueued:
      return true;
    case QueueResult::kCompleted:
      c.tag = slot;
      sync_done_.push_back(c);
      return true;
    case QueueResult::kBusy:
      retry.push_back(slot);
      return false;
  }
  return false;
}

template <class Done>
bool IoPump::complete(const IoCompletion& c, Done& done, std::vector<unsigned>& free_slots,
                      std::vector<unsigned>& retry) {
  const auto slot = static_cast<unsigned>(c.tag);
  Slot& s = state_[slot];
  if (c.result < 0) {
    error_ = Status::FromErrno(std::string(s.req.op == IoOp::kWrite ? "write" : "read") + " of " +
                                   std::to_string(s.req.len) + " bytes at offset " + std::to_string(s.req.offset),
                               static_cast<int>(-c.result));
    return false;
  }
  if (c.result == 0) {
    error_ = Status::IoError(std::string(s.req.op == IoOp::kWrite ? "write" : "read") + " at offset " +
                             std::to_string(s.req.offset + s.moved) + " moved 0 bytes (end of file or device full)");
    return false;
  }
  s.moved += static_cast<uint32_t>(c.result);
  if (s.moved < s.req.len) {
    // Short transfer: ask for the rest from where it stopped.
    IoRequest rest = s.req;
    rest.buf = static_cast<char*>(s.req.buf) + s.moved;
    rest.offset = s.req.offset + s.moved;
    rest.len = s.req.len - s.moved;
    rest.buf_index = -1;  // a fixed buffer must be addressed from its start in some kernels
    submit(slot, rest, retry);
    return true;
  }
  const uint64_t end = now_ns();
  if (latency_ != nullptr) latency_->record(end - s.start_ns);
  if (series_ != nullptr) series_->add(end - t0_ns_, s.req.len);
  if (progress_ != nullptr) progress_->fetch_add(s.req.len, std::memory_order_relaxed);
  stats_.ios++;
  stats_.bytes += s.req.len;
  done(slot, s.req);
  free_slots.push_back(slot);
  return true;
}

template <class Next, class Done>
Status IoPump::run(Next&& next, Done&& done) {
  std::vector<unsigned> free_slots;
  std::vector<unsigned> retry;  // slots whose request the engine answered busy
  free_slots.reserve(slots_);
  for (unsigned i = slots_; i-- > 0;) free_slots.push_back(i);
  std::vector<IoCompletion> reaped(slots_);
  sync_done_.reserve(slots_);
  bool exhausted = false;
  bool failed = false;

  while (true) {
    const bool stopping = failed || (stop_ != nullptr && stop_->load(std::memory_order_relaxed));
    // Resubmit what the engine was too busy for, then fill free slots.
    while (!stopping && !retry.empty()) {
      unsigned slot = retry.back();
      retry.pop_back();
      Slot& s = state_[slot];
      IoRequest req = s.req;
      if (s.moved > 0) {
        req.buf = static_cast<char*>(s.req.buf) + s.moved;
        req.offset += s.moved;
        req.len -= s.moved;
        req.buf_index = -1;
      }
      if (!submit(slot, req, retry)) break;
    }
    while (!stopping && !exhausted && retry.empty() && !free_slots.empty()) {
      unsigned slot = free_slots.back();
      IoRequest req;
      req.buf = bufs_.at(slot);
      req.buf_index = fixed_ ? static_cast<int>(slot) : -1;
      req.tag = slot;
      if (!next(slot, req)) {
        exhausted = true;
        break;
      }
      free_slots.pop_back();
      Slot& s = state_[slot];
      s.req = req;
      s.moved = 0;
      s.start_ns = now_ns();
      if (!submit(slot, req, retry)) break;
    }
    // Synchronous completions first: they may free slots without any reap.
    while (!sync_done_.empty()) {
      IoCompletion c = sync_done_.back();
      sync_done_.pop_back();
      if (!failed && !complete(c, done, free_slots, retry)) failed = true;
    }
    if (engine_.in_flight() == 0) {
      if (sync_done_.empty() && (failed || stopping || (exhausted && retry.empty()))) break;
      if (failed || stopping) break;
      continue;
    }
    Status st = engine_.commit();
    if (!st.ok()) {
      error_ = st;
      failed = true;
    }
    unsigned n = 0;
    st = engine_.reap(1, reaped, &n);
    if (!st.ok()) return st;  // the engine cannot tell us about its I/O any more
    for (unsigned i = 0; i < n; ++i) {
      if (!failed && !complete(reaped[i], done, free_slots, retry)) failed = true;
    }
  }
  if (failed) return error_;
  if (stop_ != nullptr && stop_->load(std::memory_order_relaxed) && !(exhausted && retry.empty())) {
    return Status::Interrupted();
  }
  return Status::Ok();
}

}  // namespace iofab
