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
// The I/O itself (short transfers, kBusy answers, errors and the drain
// after one: the kernel may still be writing into the ring) is IoDriver's,
// shared with IoPump; an error stops submission and is returned with the
// errno text and the failed read's file offset. Latency is per block, from
// its first queue() to its completion being reaped.
//
// Thread-safety: one reader per worker thread, like the Engine it drives.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/engines/engine.h"
#include "harness/engines/io_buffers.h"
#include "harness/engines/io_driver.h"
#include "harness/engines/io_pump.h"  // readers back what IoPump wrote; their tests use both
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
        stop_(stop),
        driver_(engine, static_cast<unsigned>(ring.count()), "returned 0 bytes: the file ends early", latency,
                series, t0_ns, progress),
        ready_(ring.count()) {}

  // Reads [0, size) of file (an Engine::add_file index) in blocks of block
  // bytes (the last may be shorter); consume(const void* data, uint32_t len,
  // uint64_t offset) sees each block once, in order. Interrupted when the
  // stop flag ended the read early.
  template <class Consume>
  Status read(int file, uint64_t size, uint32_t block, Consume&& consume);

  // Totals over every read() so far.
  const IoPumpStats& stats() const { return driver_.stats(); }

  // on: consume() may keep using the last block it was handed until it is handed the next one (a hash on
  // another thread): that block's slot is not read into meanwhile. Needs a ring of depth + 1 buffers.
  void hold_last(bool on) { hold_last_ = on; }

 private:
  bool stop_requested() const { return stop_ != nullptr && stop_->load(std::memory_order_relaxed); }

  Engine& engine_;
  const IoBuffers& ring_;
  unsigned depth_;
  bool fixed_;
  const std::atomic<bool>* stop_;
  bool hold_last_ = false;
  IoDriver driver_;
  // Per ring slot: the whole block is in the buffer and not yet consumed.
  std::vector<char> ready_;
};

template <class Consume>
Status InOrderReader::read(int file, uint64_t size, uint32_t block, Consume&& consume) {
  const size_t held = hold_last_ ? 1 : 0;
  if (depth_ == 0 || ring_.count() < depth_ + held || ring_.size() < block || block == 0) {
    return Status::Internal("InOrderReader: the ring needs " + std::to_string(depth_ + held) +
                            " buffers of " + std::to_string(block) + " bytes");
  }
  const uint64_t blocks = (size + block - 1) / block;
  const uint64_t window = ready_.size();
  // Blocks issued ahead of the next one to hand over: every slot but the held one's.
  const uint64_t ahead = window - held;
  uint64_t next_issue = 0;
  uint64_t next_retire = 0;
  driver_.restart();
  std::fill(ready_.begin(), ready_.end(), 0);
  std::vector<unsigned> finished;
  finished.reserve(window);
  auto mark_ready = [&] {
    for (unsigned slot : finished) ready_[slot] = 1;
    finished.clear();
  };

  while (next_retire < blocks) {
    const bool stopping = driver_.failed() || stop_requested();
    // What the engine was too busy for goes first, in order.
    if (!stopping) driver_.retry_busy();
    while (!stopping && !driver_.busy() && next_issue < blocks && next_issue - next_retire < ahead &&
           driver_.active() < depth_) {
      const auto slot = static_cast<unsigned>(next_issue % window);
      IoRequest req;
      req.file = file;
      req.op = IoOp::kRead;
      req.buf = ring_.at(slot);
      req.buf_index = fixed_ ? static_cast<int>(slot) : -1;
      req.offset = next_issue * block;
      req.len = static_cast<uint32_t>(std::min<uint64_t>(block, size - req.offset));
      req.tag = slot;
      ready_[slot] = 0;
      ++next_issue;
      driver_.issue(slot, req);
    }
    // Hand the new reads to the device before consuming (hashing) what arrived, not after.
    if (!driver_.failed()) driver_.commit();
    // Synchronous completions may resubmit (short reads), which may complete synchronously again.
    driver_.complete_synchronous(&finished);
    mark_ready();
    // Hand over every block that is complete and next in file order.
    while (!driver_.failed() && next_retire < next_issue) {
      const auto slot = static_cast<unsigned>(next_retire % window);
      if (!ready_[slot]) break;
      const IoRequest& req = driver_.request(slot);
      consume(static_cast<const void*>(req.buf), req.len, req.offset);
      ready_[slot] = 0;
      ++next_retire;
    }
    if (next_retire == blocks) break;
    if (engine_.in_flight() == 0) {
      if (driver_.failed() || stopping) break;
      continue;  // busy with nothing in flight, or more to issue
    }
    Status st = driver_.reap(&finished);
    if (!st.ok()) return st;  // the engine cannot tell us about its I/O any more
    mark_ready();
  }
  if (driver_.failed()) return driver_.error();
  if (next_retire < blocks) return Status::Interrupted();
  return Status::Ok();
}

}  // namespace iofab
