// The prepare phase's pipeline on one rank: reader threads read raw sample
// files (one open and one read each, through the Store and an Engine),
// transformer threads transform each sample (prepare_transform.h), writer
// threads append the results to tar shards (prepare_tar.h) and write them
// out block by block. Two bounded queues join the stages (prepare_queue.h),
// so a slow stage holds the ones before it: at most readers + transformers
// + writers + 2 x queue_depth samples are in flight at any time.
//
// Each thread keeps its stage's figures (prepare_bound.h): the time in its
// own work, waiting for input, waiting for room, and its CPU time.
//
// Thread-safety: run_prepare_pipeline starts and joins its own threads; the
// store must allow calls from several threads on distinct paths (every Store
// does), and every engine is used by the one thread that made it.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "harness/core/status.h"
#include "harness/engines/engine.h"
#include "harness/store/store.h"
#include "workloads/dataset/dataset.h"
#include "workloads/prepare/prepare_bound.h"
#include "workloads/prepare/prepare_transform.h"

namespace iofab {

using PrepareEngineMaker = std::function<Status(const EngineOptions&, std::unique_ptr<Engine>*)>;

struct PipelineConfig {
  unsigned readers = 1;
  unsigned transformers = 1;
  unsigned writers = 1;
  unsigned queue_depth = 16;          // samples each of the two queues holds
  uint64_t shard_size = 64ULL << 20;  // a writer closes its shard once it holds this many bytes
  uint64_t block_size = 1ULL << 20;   // a writer's write size (a multiple of 4 KiB under direct)
  bool direct = false;
  bool fsync = true;  // each shard durable at its end, in the writer's time
  TransformSpec transform;
};

// Where the samples come from and where the shards go, on one rank.
struct PipelineIo {
  Store* store = nullptr;
  std::string raw_data;                   // the raw dataset's data folder
  const DatasetLayout* layout = nullptr;  // files layout: sample i is file i
  std::vector<uint64_t> samples;          // this rank's samples
  std::string out_folder;                 // the shards' folder (it exists)
  std::string shard_prefix;               // "r0-": shard names are <prefix>w<writer>-<n>.tar
  PrepareEngineMaker make_engine;
  const std::atomic<bool>* stop = nullptr;
  std::atomic<uint64_t>* progress = nullptr;  // bytes read
};

struct PipelineFigures {
  StageFigures read, transform, write;
  uint64_t wall_ns = 0;        // the threads' start to the last one's end
  uint64_t samples = 0;        // samples read (and written)
  uint64_t input_bytes = 0;    // their bytes
  uint64_t read_bytes = 0;     // bytes read from storage (files padded to 4 KiB)
  uint64_t payload_bytes = 0;  // the transformed samples' bytes
  uint64_t output_bytes = 0;   // bytes written to shards: headers, padding and archive ends included
  uint64_t shards = 0;
  uint64_t corrupt_samples = 0;  // read back with a header that does not name the sample
  uint64_t read_queue_high_water = 0;
  uint64_t write_queue_high_water = 0;
  uint64_t max_in_flight = 0;  // most samples read and not yet in a writer's shard, at once
};

// Runs the pipeline over io.samples. The first error stops every stage and is returned (a real error
// before an interruption); Interrupted when io.stop was seen. *out holds what was done either way.
Status run_prepare_pipeline(const PipelineConfig& cfg, const PipelineIo& io, PipelineFigures* out);

// "000000042.zst": a sample's member name in a shard.
std::string sample_member_name(uint64_t sample, const char* extension);

}  // namespace iofab
