// The I/O params every storage phase reads the same way: the engine, O_DIRECT
// or not, the workers, the block size, the queue depth and the time series'
// interval. One reader, so that a phase parser lists no engine names: the
// engine name is checked against the engine table, and a new engine is one
// row there.
#pragma once

#include <cstdint>
#include <string>

#include "harness/engines/engine.h"

namespace iofab {

class ParamReader;

// O_DIRECT's alignment for sizes and offsets (4KiB: the largest logical block of common devices).
constexpr uint64_t kDirectAlignment = 4096;

struct IoParams {
  std::string engine = "auto";  // an engine table name, or "auto": resolved where the phase runs
  bool direct = false;
  unsigned workers = 1;
  uint64_t block_size = 0;  // 0 for a phase without block_size
  unsigned queue_depth = 1;
  uint64_t series_interval_ns = 100'000'000;
  MapAdvice madvise = MapAdvice::kNone;  // read phases only: the hint engine mmap gives each mapping
};

// Where storage phases differ.
struct IoParamsForm {
  unsigned queue_depth = 1;    // the default
  bool has_block_size = true;  // a reader of whole samples has none
  bool reads = false;          // a phase that only reads: it takes `madvise` (for engine mmap)
};

// Reads engine, direct, workers, block_size (when the form has it), queue_depth, series_interval and, for a
// phase that reads, madvise with r, in that order; errors go to r like any param's. With direct,
// block_size must be a multiple of kDirectAlignment, and the engine must take O_DIRECT (mmap does not);
// madvise other than "none" needs an engine that maps files (engine_takes_map_advice).
IoParams read_io_params(ParamReader& r, const IoParamsForm& form);

// A storage phase's params derive from IoParams (struct CheckpointParams : IoParams), so the fields are
// declared once and the reader's result is one assignment: static_cast<IoParams&>(p) = read_io_params(...).

}  // namespace iofab
