// FillAhead: the bytes of the next write are made on a thread of its own (BesideThread) while a
// synchronous engine (psync, mmap: each write is done when queue() returns) writes the current one, so the
// device does not wait for the generator between two writes (issue 33, item 2: ingest's and checkpoint's
// writers at queue depth 1 made each block between one write and the next).
//
// Blocks are numbered 0, 1, ... in the order they are written. make(i, buf) fills block i; calls run one
// at a time in block order, so make may carry a stream on (a hash of what is written). Two buffers of the
// writer's ring take turns, block i in buffer i % 2, its registration index kept: block i - 1's buffer is
// refilled while block i is written, which is safe only because a synchronous engine has finished with
// it. An engine that completes later (io_uring) keeps its other writes in flight while one block is made
// and does not need this.
//
// Thread-safety: one writer thread calls take and wait; make runs on the beside thread or the caller's.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>

#include "harness/engines/beside_thread.h"
#include "harness/engines/engine.h"
#include "harness/engines/io_buffers.h"

namespace iofab {

class FillAhead {
 public:
  using Make = std::function<void(uint64_t block, void* buf)>;

  // ring: at least 2 buffers; beside: the thread to make blocks on (one per writer, kept across files).
  FillAhead(const IoBuffers& ring, BesideThread& beside, Make make)
      : ring_(ring), beside_(beside), make_(std::move(make)) {}
  ~FillAhead() { beside_.wait(); }  // make_ and what it captures outlive its last call
  FillAhead(const FillAhead&) = delete;
  FillAhead& operator=(const FillAhead&) = delete;

  // Points req (buf, buf_index) at block i's bytes, made by now (ahead, or here when i was not the block
  // made ahead); then, when more, starts making block i + 1 into the other buffer.
  void take(uint64_t i, bool more, IoRequest& req);
  // Every block taken or started is made (read what make carried on after this).
  void wait() { beside_.wait(); }

 private:
  static constexpr uint64_t kNone = std::numeric_limits<uint64_t>::max();

  const IoBuffers& ring_;
  BesideThread& beside_;
  Make make_;
  uint64_t ahead_ = kNone;  // the block started on the beside thread
};

}  // namespace iofab
