// Data written by iofab: incompressible and never dedupable, so compressing
// or deduplicating storage (ZFS, VAST, ...) cannot report fiction.
// A buffer is filled once per worker from a seeded fast generator
// (xoshiro256+ style); before each submission stamp() writes a 16-byte
// header, unique per (seed, block id, sector), at the start of every 512-byte
// sector. So no two sectors ever written by a run are equal, at any dedup
// granularity >= 512 B, while the per-I/O cost is touching 1/32 of the bytes.
//
// That is the default. A user whose storage reduces data inline can choose
// how reducible the data is instead (Reducibility, ReducibleFiller below).
//
// Thread-safety: a BlockFiller is owned by one worker; a ReducibleFiller is
// immutable, so any number of threads may share one.
#pragma once

#include <cstddef>
#include <cstdint>

namespace iofab {

// How much of the written data a storage system could reduce: what a suite's `compressibility` and `dedup`
// ask for (docs/data-reducibility.md). Both 0 (the default): the data are BlockFiller's.
struct Reducibility {
  double compressibility = 0;  // [0, 1): a block compresses to about (1 - compressibility) of its size
  double dedup = 0;            // [0, 1): this fraction of a stream's blocks repeat an earlier block of it

  bool any() const { return compressibility > 0 || dedup > 0; }
};

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

// Blocks of chosen reducibility, each a pure function of (seed, stream, index), so that a checksum taken
// while writing, or a regeneration, gives the same bytes. A writer numbers its blocks 0, 1, 2, ... within
// a stream (one worker's files, one shard of one checkpoint step, one dataset file); a block is the unit
// of dedup: a filesystem that dedups in units of this size, or in units dividing it at aligned offsets,
// sees the requested dedup fraction.
//
// Compressibility, as fio's buffer_compress_percentage with its 512-byte chunks: every 512-byte sector
// holds (1 - compressibility) x 512 fresh random bytes, then zeros. So any compressor that works on a
// block (zstd, lz4, gzip; ZFS's per-record compression) gets about (1 - compressibility) of it, and every
// sector still holds random bytes, so no sector repeats at a 512-byte dedup granularity either.
//
// Dedup: exactly floor(n x dedup) (+-1) of a stream's first n blocks are duplicates (spread evenly, not
// drawn at random, so a short run gets the requested fraction too). Block 0 is always unique; a duplicate
// carries the content of an earlier block of its stream chosen at random, and unique blocks never repeat
// each other (their random bytes come from a 64-bit key of (seed, stream, block)).
//
// Cost: unlike BlockFiller's stamp (1/32 of the bytes per write), every block is generated in full,
// about (1 - compressibility) of its bytes at the generator's speed (benches/data_fill_bench.cc).
class ReducibleFiller {
 public:
  ReducibleFiller(uint64_t seed, Reducibility r);

  // Random bytes per 512-byte sector (the rest are zeros).
  size_t random_per_sector() const { return random_per_sector_; }
  // Whether block index of stream repeats an earlier block.
  bool is_duplicate(uint64_t stream, uint64_t index) const;
  // The unique block whose content block index of stream carries: index itself unless it is a duplicate.
  uint64_t source_of(uint64_t stream, uint64_t index) const;
  // Fills buf with the len bytes of block index of stream (len: the block's size; the same len for the
  // same block every time, as the content of a block of another size is another).
  void fill(void* buf, size_t len, uint64_t stream, uint64_t index) const;

 private:
  uint64_t key_;
  size_t random_per_sector_;
  uint64_t dup_step_;  // dedup in 32-bit fixed point
};

}  // namespace iofab
