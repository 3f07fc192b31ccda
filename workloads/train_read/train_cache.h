// SampleCache: train_read's local cache tier (cache_dir), the "object store
// plus local cache" design. The source is whatever the loader reads through
// its Store (the run folder, a dataset_dir on a shared filesystem, or an
// object store, whose objects the loader's MixedEngine reads beside the
// cache's files); the cache is a folder on node-local storage,
// <cache_dir>/<run folder's name>/<phase>/, named like the run folder so a
// person can tell which run left it.
//
// One file per sample (the sample's bytes, padded with zeros to
// kRecordAlignment so an O_DIRECT read of the whole file is valid), whatever
// the dataset's layout: a cache holds what was read, not the source's
// containers. A sample is cached once its file is committed under its final
// name, after it was read from the source and its header verified, so a
// half-written or wrong sample is never served. Ranks on one host share the
// folder: a sample is looked up by opening its file, so a sample another
// local rank filled is served too. Each rank fills at most its share of the
// limit (cache_size / the host's ranks).
//
// The folder goes with the cache (end of phase, failure, Ctrl-C: every way out
// of the phase's run), unless --keep.
//
// Thread-safety: lookup, fill and the counters may be used from several reader threads at once;
// cache_pass and remove from the phase's thread while no reader runs.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

#include "harness/core/status.h"
#include "harness/fs/run_folder_hold.h"
#include "harness/phase/phase.h"
#include "harness/store/store.h"
#include "workloads/dataset/dataset.h"

namespace iofab {

struct CacheTierOptions {
  std::string dir;          // cache_dir: an absolute folder on node-local storage
  uint64_t host_limit = 0;  // bytes the host's ranks may fill together, padding included
  int host_ranks = 1;       // ranks on this host sharing the folder
  uint64_t need_bytes = 0;  // free space the host's cache needs (the limit, or the whole dataset)
  std::string dataset_dir;  // the phase's dataset_dir, if any: the cache must not be made inside it
};

// The cache's footprint of a sample: its bytes rounded up to kRecordAlignment.
inline uint64_t cached_sample_bytes(uint64_t size) {
  return (size + kRecordAlignment - 1) / kRecordAlignment * kRecordAlignment;
}

// The cache's footprint of the whole dataset: what a cache that holds every sample needs.
uint64_t cached_dataset_bytes(const DatasetLayout& layout);

class SampleCache {
 public:
  // Checks dir on this host (a writable folder, not a device, with room for need_bytes plus a
  // margin) and makes the phase's folder there. A failed check writes nothing and names cache_dir.
  static Status open(const CacheTierOptions& opts, const PhaseContext& ctx,
                     std::unique_ptr<SampleCache>* out);
  ~SampleCache();
  SampleCache(const SampleCache&) = delete;
  SampleCache& operator=(const SampleCache&) = delete;

  // Opens sample's cache file for reading: out stays closed when the sample is not cached.
  Status lookup(uint64_t sample, bool direct, StoreFile* out);

  // A sample being written to the cache. Pieces may come in any order; commit() makes it visible.
  class Fill {
   public:
    Fill() = default;
    bool active() const { return file_.is_open(); }
    // Writes bytes at offset within the sample.
    Status write(const void* bytes, uint64_t len, uint64_t offset);

   private:
    friend class SampleCache;
    StoreFile file_;
    std::string temp_;
    uint64_t sample_ = 0;
    uint64_t size_ = 0;
  };
  // Starts caching sample of size bytes when this rank's share has room; *started false when not
  // (counted as not cached).
  Status begin(uint64_t sample, uint64_t size, Fill* fill, bool* started);
  // Pads and names the sample's file: from now on lookup serves it.
  Status commit(Fill* fill);
  // Gives the room back and removes the partial file (a failed read, a corrupt sample).
  void abandon(Fill* fill);

  // Over the samples this rank cached: optionally drops their pages (so a later epoch reads the cache's
  // device, not memory), then counts how much of them is resident.
  Status cache_pass(bool drop, CacheCounts* out);
  // Removes the phase's folder, then the run's when no other local rank still has files in it. Once;
  // the destructor does it when the phase did not. Nothing under --keep.
  Status remove();

  const std::string& location() const { return location_; }
  uint64_t rank_limit() const { return rank_limit_; }
  uint64_t filled_bytes() const { return used_.load(); }

 private:
  SampleCache(const PhaseContext& ctx, std::string dir, std::string run_name, std::unique_ptr<Store> store,
              uint64_t rank_limit);
  std::string path_of(uint64_t sample) const;
  Status make_folders(uint64_t sample);

  std::string dir_;
  std::string run_name_;
  std::string phase_;
  std::string location_;
  std::unique_ptr<Store> store_;  // rooted at <dir>/<run_name>
  const uint64_t rank_limit_;
  const int rank_;
  const bool keep_;
  bool removed_ = false;
  RunFolderHold hold_;  // the run lock in <dir>/<run_name>, for `iofab clean`
  std::atomic<uint64_t> used_{0};
  std::mutex mu_;
  std::unordered_set<uint64_t> folders_;  // second-level folders made
  std::vector<uint64_t> cached_;          // samples this rank committed
};

}  // namespace iofab
