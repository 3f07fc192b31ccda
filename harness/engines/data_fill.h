// Data written by iofab: incompressible and never dedupable, so compressing
// or deduplicating storage (ZFS, VAST, ...) cannot report fiction.
// A buffer is filled once per worker from a seeded fast generator
// (xoshiro256+ style); before each submission stamp() writes a 16-byte
// header, unique per (seed, block id, sector), at the start of every 512-byte
// sector. So no two sectors ever written by a run are equal, at any dedup
// granularity >= 512 B, while the per-I/O cost is touching 1/32 of the bytes.
//
// Thread-safety: a BlockFiller is owned by one worker.
#pragma once

#include <cstddef>
#include <cstdint>

namespace iofab {

class BlockFiller {
 public:
  static constexpr size_t kSector = 512;

  explicit BlockFiller(uint64_t seed);

  // Fills len bytes of buf with pseudo-random bytes (continuing the stream).
  void fill(void* buf, size_t len);
  // Makes buf unique for block_id: stamps every 512-byte sector.
  void stamp(void* buf, size_t len, uint64_t block_id) const;

 private:
  uint64_t seed_;
  uint64_t s_[4];
};

}  // namespace iofab
