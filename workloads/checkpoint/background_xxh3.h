// A streaming XXH3 on a thread of its own, one block behind the reader: while a synchronous engine
// (psync, one read at a time) reads block b, block b - 1 is hashed beside it, so a verified read at queue
// depth 1 costs the device's time, not the device's time plus the hash's (issue 33: an O_DIRECT restore at
// queue depth 1 took 1.5x IOR's time with the hash between two reads).
//
// feed() hands a block over once the one before is hashed: the caller may reuse the buffer of every block
// but the last one fed (InOrderReader::hold_last). digest() waits for the last block.
// Thread-safety: one owner thread calls feed, reset and digest.
#pragma once

#include <cstddef>
#include <cstdint>

#include "harness/engines/beside_thread.h"
#include "workloads/checkpoint/xxh3.h"

namespace iofab {

class BackgroundXxh3 {
 public:
  // A new hash (the previous block, if any, hashed first).
  void reset();
  // Waits until the block fed before is hashed, then hands this one over. data stays valid, unchanged,
  // until the next feed(), reset() or digest() returns.
  void feed(const void* data, size_t len);
  // The hash of every byte fed since reset().
  uint64_t digest();
  // Nanoseconds the thread spent hashing, in total.
  uint64_t busy_ns() { return beside_.busy_ns(); }

 private:
  StreamingXxh3 hash_;   // touched by the thread's jobs only, or after wait()
  BesideThread beside_;  // last: its destructor waits for the last job, which uses hash_
};

}  // namespace iofab
