// A streaming XXH3 on a thread of its own, one block behind the reader: while a synchronous engine
// (psync, one read at a time) reads block b, block b - 1 is hashed beside it, so a verified read at queue
// depth 1 costs the device's time, not the device's time plus the hash's (issue 33: an O_DIRECT restore at
// queue depth 1 took 1.5x IOR's time with the hash between two reads).
//
// feed() hands a block over once the one before is hashed: the caller may reuse the buffer of every block
// but the last one fed (InOrderReader::hold_last). digest() waits for the last block.
// Thread-safety: one owner thread calls feed, reset and digest.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>

#include "workloads/checkpoint/xxh3.h"

namespace iofab {

class BackgroundXxh3 {
 public:
  BackgroundXxh3();
  ~BackgroundXxh3();
  BackgroundXxh3(const BackgroundXxh3&) = delete;
  BackgroundXxh3& operator=(const BackgroundXxh3&) = delete;

  // A new hash (the previous block, if any, hashed first).
  void reset();
  // Waits until the block fed before is hashed, then hands this one over. data stays valid, unchanged,
  // until the next feed(), reset() or digest() returns.
  void feed(const void* data, size_t len);
  // The hash of every byte fed since reset().
  uint64_t digest();
  // Nanoseconds the thread spent hashing, in total.
  uint64_t busy_ns();

 private:
  void wait_idle(std::unique_lock<std::mutex>& lock);
  void loop();

  StreamingXxh3 hash_;
  std::mutex mu_;
  std::condition_variable cv_;
  const void* data_ = nullptr;  // the block waiting to be hashed; null: idle
  size_t len_ = 0;
  bool quit_ = false;
  uint64_t busy_ns_ = 0;
  std::thread thread_;  // last: started once the rest is made
};

}  // namespace iofab
