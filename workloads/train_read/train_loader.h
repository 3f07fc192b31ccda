// TrainLoader: one rank's native data loader for the train_read phase.
//
// read_threads reader threads, each with its own Engine at queue_depth,
// pull samples one at a time from a shared cursor over the epoch's batch
// plan, but only from the batches admitted by the prefetch window: batch b
// may be read once the consumer has taken batch b - prefetch (prefetch 0:
// once it has finished computing on batch b - 1, so reading and compute
// never overlap). The consumer, on the caller's thread, waits for the next
// batch in order to be complete (that wait is the time the accelerator
// starves), optionally copies it to a GPU, then "computes" for
// compute_per_batch while the readers keep filling the window.
//
// Readers drive their engine through IoPump. IoPump's next() cannot say
// "nothing now, more later", so a reader that reaches the window's edge
// lets its pump drain and starts a new one once the window moves: the
// in-flight I/O of the batch the consumer waits for is reaped, never held.
//
// Under O_DIRECT a sample is read as the aligned span covering it (the
// dataset pads every file so that span never passes the end); only the
// sample's own bytes count as read bytes, the span's in io_bytes. A span
// longer than max_request is read as several requests, in order, by the
// reader that claimed the sample; the sample completes with its last piece.
//
// Files are the Store's (StoreFile), handed to the engines with
// add_store_file: a descriptor on a filesystem, an object on an object store,
// where a `shards` sample is a ranged GET of its bytes and a `files` sample a
// GET of its object. Over an object store with a cache tier, each reader's
// engine is a MixedEngine: the store's engine for the dataset's objects,
// psync for the cache's files.
//
// With a cache tier (use_cache), a sample is looked up in the cache first
// and read from its cache file when there; otherwise it is read from the
// source and, while the cache has room, written to it piece by piece in the
// reader's thread (so the fill's cost is the epoch's, as a real cache
// fill's is) and committed once its last piece is in and its header checked.
//
// The plan's read order is the order samples are claimed in; its
// consumption order (a streaming reader's shuffle buffer) decides the batch
// each sample fills, and the window admits the lookahead that needs.
//
// Thread-safety: one epoch at a time, from one thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "harness/core/status.h"
#include "harness/engines/engine.h"
#include "harness/engines/io_buffers.h"
#include "harness/stats/histogram.h"
#include "harness/stats/io_tally.h"
#include "workloads/dataset/dataset.h"
#include "workloads/train_read/sampler.h"
#include "workloads/train_read/train_cache.h"

namespace iofab {

class BatchCopier;

// Makes an engine by the loader's options (tests pass engines of their own).
using EngineFactory = std::function<Status(const EngineOptions&, std::unique_ptr<Engine>*)>;

// The longest read request: a sample whose span is longer is read in pieces of this size, so samples
// past 256 MiB (unet3d's sizes reach them) need no buffer of their size per request in flight.
constexpr uint64_t kMaxRequestBytes = 256ULL << 20;

struct LoaderConfig {
  unsigned read_threads = 1;
  unsigned queue_depth = 1;
  unsigned prefetch = 2;    // batches ahead of the one being computed on
  uint64_t compute_ns = 0;  // emulated compute per batch
  bool direct = false;
  MapAdvice map_advice = MapAdvice::kNone;  // engine mmap: madvise on each mapping
  uint64_t series_interval_ns = 100'000'000;
  // Bytes per read request, a multiple of kRecordAlignment up to kMaxRequestBytes (tests use small ones
  // to split small samples).
  uint64_t max_request = kMaxRequestBytes;
  // Buffered reads: drop each sample's pages from the page cache once it is whole (its file's, a files
  // layout; its range widened to pages, a shard's), so no later read finds it there.
  bool drop_after_use = false;
  // A cache tier will be used (use_cache): the engines' file tables keep room for the cache files a
  // reader has open beside the shards.
  bool cache_tier = false;
};

// One rank's figures for one epoch. Times are ns since the epoch's common start t0.
struct EpochStats {
  explicit EpochStats(uint64_t series_interval_ns = 100'000'000) : reads(series_interval_ns) {}

  IoTally reads;  // bytes: sample bytes; ios: samples; latency: per sample; span: first start to last end
  uint64_t io_bytes = 0;       // bytes requested from storage (aligned spans under O_DIRECT)
  uint64_t batches = 0;        // batches consumed
  uint64_t compute_ns = 0;     // emulated compute, all consumed batches
  uint64_t wait_ns = 0;        // consumer waiting for data, first batch excluded when there are >= 2
  uint64_t first_wait_ns = 0;  // t0 to the first batch being ready (pipeline fill)
  uint64_t wall_ns = 0;        // the AU denominator: first batch taken to last compute end (>= 2 batches)
  uint64_t end_ns = 0;         // last compute end
  Histogram batch_wait;        // every batch's wait, first included
  uint64_t id_count = 0;       // samples read
  uint64_t id_sum = 0;         // sum of sample_fingerprint over the samples read (mod 2^64)
  uint64_t corrupt = 0;        // samples whose header did not name the sample
  uint64_t gpu_bytes = 0;
  uint64_t gpu_ns = 0;
  // The cache tier (cache_dir): sample bytes by where they came from, and what this epoch cached.
  uint64_t source_bytes = 0;
  uint64_t cache_bytes = 0;
  uint64_t cache_samples = 0;     // samples served by the cache
  uint64_t filled_samples = 0;    // samples written to the cache
  uint64_t filled_bytes = 0;      // their bytes, padding included
  uint64_t unfilled_samples = 0;  // read from the source, not cached: the cache's share was full
  uint64_t fill_ns = 0;           // readers' time writing the cache, summed over readers
  uint64_t dropped_samples = 0;   // samples whose pages were dropped after use (drop_after_use)
  uint64_t first_done_ns = 0;     // the first batch's compute end (DLIO's first step; >= 2 batches)

  double au() const {
    return wall_ns > 0 ? static_cast<double>(compute_ns) / static_cast<double>(wall_ns) : 0.0;
  }
  void merge(const EpochStats& other);  // another rank's: sums; end_ns and spans widen
  // Its wire form (packed histograms and series, packed_u64.h); from_json reads it.
  nlohmann::json to_wire() const;
  bool from_json(const nlohmann::json& j);
};

struct LoaderMarks;

class TrainLoader {
 public:
  TrainLoader(const TrainLoader&) = delete;
  TrainLoader& operator=(const TrainLoader&) = delete;
  ~TrainLoader();

  // Makes the readers' engines and buffers and, for shards, opens every
  // shard once. The dataset's files are opened in the folder data of store,
  // which must outlive the loader. copier may be null (no GPU copy); it must have at least
  // prefetch + 1 slots of batch_size * max_sample_size bytes.
  static Status create(const LoaderConfig& config, const DatasetLayout& layout, Store& store,
                       std::string_view data, const EngineFactory& make, BatchCopier* copier,
                       std::unique_ptr<TrainLoader>* out);

  // Reads and consumes one epoch's plan. t0: the epoch's common start
  // (CLOCK_MONOTONIC ns). Returns Interrupted when stop was seen, the first
  // I/O error otherwise; out is filled either way.
  Status run_epoch(const BatchPlan& plan, uint64_t t0, const std::atomic<bool>& stop,
                   std::atomic<uint64_t>* progress, EpochStats* out);

  // The cache tier the next epochs look samples up in and fill (null: the source only). It must outlive
  // the epochs run with it.
  void use_cache(SampleCache* cache) { cache_ = cache; }
  // Records every later epoch's timeline into marks (a concurrent group's window split); it must
  // outlive the epochs run with it.
  void record_marks(LoaderMarks* marks) { marks_ = marks; }

  std::string engine_name() const;
  // Whether samples' headers are checked (not with an engine that moves no data).
  bool verifies() const { return verify_; }

 private:
  struct Reader;
  struct Epoch;
  class ReadPass;
  // The consumer's clock over an epoch: when it took the first batch, when its last compute ended.
  struct ConsumerClock {
    uint64_t take0 = 0;
    uint64_t last_end = 0;
  };
  TrainLoader(const LoaderConfig& config, const DatasetLayout& layout, Store& store, std::string data,
              BatchCopier* copier);
  Status read_loop(Reader& r, Epoch& e);
  Status consume_batches(Epoch& e, EpochStats* out, ConsumerClock* clock);
  bool wait_for_batch(Epoch& e, uint64_t b);
  void close_epoch(Epoch& e, const ConsumerClock& clock, EpochStats* out);

  LoaderConfig config_;
  const DatasetLayout& layout_;
  Store& store_;
  std::string data_;  // the dataset's data/ folder in store_
  BatchCopier* copier_;
  SampleCache* cache_ = nullptr;
  LoaderMarks* marks_ = nullptr;
  bool verify_ = true;
  std::vector<StoreFile> shard_files_;  // shards: every one, open for the loader's life
  std::vector<std::unique_ptr<Reader>> readers_;
};

}  // namespace iofab
