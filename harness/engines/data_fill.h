// Data written by iofab: incompressible and never dedupable, so compressing or deduplicating storage (ZFS,
// VAST, arrays that reduce data across blocks) cannot report fiction.
//
// The default data are a counter-mode generator (counter_blocks.h): byte o of the stream keyed by k is
// byte o % 16 of E(k, o / 16), four AES rounds over the counter block. So every byte is a pure function
// of (key, offset): a writer makes any block of any file at any offset on its own, in one pass per byte,
// and a reader makes the same bytes again to verify them. A stream is what one file holds (its key from
// the run's seed and the file's coordinates: data_key); E is a permutation, so no aligned 16 bytes repeat
// anywhere in a run, and nothing repeats for a compressor to find at any window (docs/data-reducibility.md
// has the measured ratios).
//
// That is the default. A user whose storage reduces data inline can choose how reducible the data is
// instead (Reducibility, ReducibleFiller below).
//
// Thread-safety: DataStream and ReducibleFiller are immutable, so any number of threads may share one.
#pragma once

#include <cstddef>
#include <cstdint>

namespace iofab {

// How much of the written data a storage system could reduce: what a suite's `compressibility` and `dedup`
// ask for (docs/data-reducibility.md). Both 0 (the default): the data are DataStream's.
struct Reducibility {
  double compressibility = 0;  // [0, 1): a block compresses to about (1 - compressibility) of its size
  double dedup = 0;            // [0, 1): this fraction of a stream's blocks repeat an earlier block of it

  bool any() const { return compressibility > 0 || dedup > 0; }
};

// The sector: the smallest unit a device writes, and the smallest dedup unit there is.
constexpr size_t kDataSector = 512;

// The key of the stream a file holds, from the run's (or the phase's) seed and the file's coordinates
// (rank, worker, file number, step: whatever names the file within the seed). Distinct arguments give
// distinct keys, but for 64-bit hash collisions.
uint64_t data_key(uint64_t seed, uint64_t a = 0, uint64_t b = 0, uint64_t c = 0);

// One stream of the default data.
class DataStream {
 public:
  explicit constexpr DataStream(uint64_t key) : key_(key) {}

  // Fills buf (any alignment) with bytes [offset, offset + len) of the stream.
  void fill(void* buf, size_t len, uint64_t offset) const;

 private:
  uint64_t key_;
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
// each other (their random bytes are DataStream's, keyed by (seed, stream, block)).
//
// Cost: about (1 - compressibility) of a block's bytes at the generator's speed, the rest at memset's
// (benches/data_fill_bench.cc).
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
