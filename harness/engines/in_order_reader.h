// InOrderReader: reads one file front to back at a queue depth and hands
// every block to consume() in file order, whatever order the engine
// completes them in. A streaming checksum (restore verifies every byte)
// needs the bytes in order; IoPump frees a slot as soon as its I/O is done,
// so it cannot hold an early block back. Here block b always lives in ring
// slot b % ring.count(), and a slot is reused only after its block was
// consumed: out-of-order completions wait in place, with no copy and no
// second read. A ring larger than the queue depth (2x is plenty) keeps
// `depth` reads in flight while early blocks wait for a late one.
//
// Short transfers are resubmitted for the rest, kBusy answers are retried,
// an error stops submission, drains what is in flight (the kernel may still
// be writing into the ring) and is returned with the errno text. Latency is
// per block, from its first queue() to its completion being reaped.
//
// Thread-safety: one reader per worker thread, like the Engine it drives.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "harness/engines/engine.h"
#include "harness/engines/io_buffers.h"
#include "harness/engines/io_pump.h"
#include "harness/stats/histogram.h"
#include "harness/stats/time_series.h"

namespace iofab {

class InOrderReader {
 public:
  // ring: at least depth buffers of at least block bytes each (registered
  // with the engine when fixed_buffers); depth: reads in flight at most.
  // t0_ns: the phase start, for the series. latency, series, progress and
  // stop may be null.
  InOrderReader(Engine& engine, const IoBuffers& ring, unsigned depth, bool fixed_buffers, Histogram* latency,
                TimeSeries* series, uint64_t t0_ns, std::atomic<uint64_t>* progress,
                const std::atomic<bool>* stop)
      : engine_(engine),
        ring_(ring),
        depth_(depth),
        fixed_(fixed_buffers),
        latency_(latency),
        series_(series),
        t0_ns_(t0_ns),
        progress_(progress),
        stop_(stop),
        slots_(ring.count()) {}

  // Reads [0, size) of file (an Engine::add_file index) in blocks of block
  // bytes (the last may be shorter); consume(const void* data, uint32_t len,
  // uint64_t offset) sees each block once, in order. Interrupted when the
  // stop flag ended the read early.
  template <class Consume>
  Status read(int file, uint64_t size, uint32_t block, Consume&& consume);

  // Totals over every read() so far.
  const IoPumpStats& stats() const { return stats_; }

 private:
  struct Slot {
    IoRequest req;  // the whole block, as first queued
    uint64_t start_ns = 0;
    uint32_t moved = 0;  // bytes done so far
    bool done = false;   // the whole block is in the buffer, not yet consumed
  };

  // Queues the rest of slot's block; a kBusy answer goes on the retry list.
  void submit(unsigned slot);
  // Handles one completion; false (with error_ set) on failure.
  bool complete(const IoCompletion& c);

  Engine& engine_;
  const IoBuffers& ring_;
  unsigned depth_;
  bool fixed_;
  Histogram* latency_;
  TimeSeries* series_;
  uint64_t t0_ns_;
  std::atomic<uint64_t>* progress_;
  const std::atomic<bool>* stop_;
  std::vector<Slot> slots_;
  std::deque<unsigned> retry_;
  std::vector<IoCompletion> sync_done_;
  IoPumpStats stats_;
  Status error_;
  unsigned in_flight_blocks_ = 0;  // issued and not yet complete
};

inline void InOrderReader::submit(unsigned slot) {
  Slot& s = slots_[slot];
  IoRequest req = s.req;
  if (s.moved > 0) {
    req.buf = static_cast<char*>(s.req.buf) + s.moved;
    req.offset += s.moved;
    req.len -= s.moved;
    req.buf_index = -1;  // a fixed buffer must be addressed from its start in some kernels
  }
  IoCompletion c;
  switch (engine_.queue(req, &c)) {
    case QueueResult::kQueued:
      break;
    case QueueResult::kCompleted:
      c.tag = slot;
      sync_done_.push_back(c);
      break;
    case QueueResult::kBusy:
      retry_.push_back(slot);
      break;
  }
}

inline bool InOrderReader::complete(const IoCompletion& c) {
  const auto slot = static_cast<unsigned>(c.tag);
  Slot& s = slots_[slot];
  if (c.result < 0) {
    error_ = Status::FromErrno(
        "read of " + std::to_string(s.req.len) + " bytes at offset " + std::to_string(s.req.offset + s.moved),
        static_cast<int>(-c.result));
    return false;
  }
  if (c.result == 0) {
    error_ = Status::IoError("read at offset " + std::to_string(s.req.offset + s.moved) +
                             " returned 0 bytes: the file ends early");
    return false;
  }
  s.moved += static_cast<uint32_t>(c.result);
  if (s.moved < s.req.len) {
    submit(slot);
    return true;
  }
  --in_flight_blocks_;
  const uint64_t end = now_ns();
  if (latency_ != nullptr) latency_->record(end - s.start_ns);
  if (series_ != nullptr) series_->add(end - t0_ns_, s.req.len);
  if (progress_ != nullptr) progress_->fetch_add(s.req.len, std::memory_order_relaxed);
  stats_.ios++;
  stats_.bytes += s.req.len;
  s.done = true;
  return true;
}

template <class Consume>
Status InOrderReader::read(int file, uint64_t size, uint32_t block, Consume&& consume) {
  if (depth_ == 0 || ring_.count() < depth_ || ring_.size() < block || block == 0) {
    return Status::Internal("InOrderReader: the ring needs " + std::to_string(depth_) + " buffers of " +
                            std::to_string(block) + " bytes");
  }
  const uint64_t blocks = (size + block - 1) / block;
  const uint64_t window = slots_.size();
  uint64_t next_issue = 0;
  uint64_t next_retire = 0;
  bool failed = false;
  error_ = Status::Ok();
  retry_.clear();
  sync_done_.clear();
  in_flight_blocks_ = 0;
  for (auto& s : slots_) s = Slot{};
  std::vector<IoCompletion> reaped(depth_);

  while (next_retire < blocks) {
    const bool stopping = failed || (stop_ != nullptr && stop_->load(std::memory_order_relaxed));
    // What the engine was too busy for goes first, in order.
    while (!stopping && !retry_.empty() && sync_done_.empty()) {
      const size_t before = retry_.size();
      const unsigned slot = retry_.front();
      retry_.pop_front();
      submit(slot);
      if (retry_.size() >= before) break;  // still busy: reap first
    }
    while (!stopping && retry_.empty() && next_issue < blocks && next_issue - next_retire < window &&
           in_flight_blocks_ < depth_) {
      const auto slot = static_cast<unsigned>(next_issue % window);
      Slot& s = slots_[slot];
      s.req = IoRequest{};
      s.req.file = file;
      s.req.op = IoOp::kRead;
      s.req.buf = ring_.at(slot);
      s.req.buf_index = fixed_ ? static_cast<int>(slot) : -1;
      s.req.offset = next_issue * block;
      s.req.len = static_cast<uint32_t>(std::min<uint64_t>(block, size - s.req.offset));
      s.req.tag = slot;
      s.moved = 0;
      s.done = false;
      s.start_ns = now_ns();
      ++next_issue;
      ++in_flight_blocks_;
      submit(slot);
    }
    // Hand the new reads to the device before consuming (hashing) what arrived, not after.
    if (!failed) {
      Status cs = engine_.commit();
      if (!cs.ok()) {
        error_ = cs;
        failed = true;
      }
    }
    // Synchronous completions may resubmit (short reads), which may complete synchronously again.
    while (!sync_done_.empty()) {
      IoCompletion c = sync_done_.back();
      sync_done_.pop_back();
      if (!failed && !complete(c)) failed = true;
    }
    // Hand over every block that is complete and next in file order.
    while (!failed && next_retire < next_issue) {
      Slot& s = slots_[next_retire % window];
      if (!s.done) break;
      consume(static_cast<const void*>(s.req.buf), s.req.len, s.req.offset);
      s.done = false;
      ++next_retire;
    }
    if (next_retire == blocks) break;
    if (engine_.in_flight() == 0) {
      if (failed || stopping) break;
      continue;  // busy with nothing in flight, or more to issue
    }
    Status st = engine_.commit();
    if (!st.ok() && !failed) {
      error_ = st;
      failed = true;
    }
    unsigned n = 0;
    st = engine_.reap(1, reaped, &n);
    if (!st.ok()) return st;  // the engine cannot tell us about its I/O any more
    for (unsigned i = 0; i < n; ++i) {
      if (!failed && !complete(reaped[i])) failed = true;
    }
  }
  if (failed) return error_;
  if (next_retire < blocks) return Status::Interrupted();
  return Status::Ok();
}

}  // namespace iofab
