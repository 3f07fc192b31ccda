// The train_read dataset: samples stored one file each (`files`, spread
// over subfolders so no folder holds more than files_per_dir entries) or
// packed back to back into large record files (`shards`, like TFRecord or
// WebDataset). Sizes come from a seeded distribution (fixed, normal,
// lognormal), so a spec always describes the same bytes in the same places.
//
// On disk, below the dataset's root folder:
//   iofab-dataset.json   the manifest: the spec, and whether generation finished
//   iofab-dataset.lock   (a dataset_dir) the lock a run holds while it uses the folder
//   data/                the sample files or shards
// The manifest is written (incomplete) before the first byte of data and
// rewritten (complete) after the last, so a folder holding it is one iofab
// made, and a complete one with the same spec can be reused. The spec names
// every file iofab made below data/: regenerating removes those files and
// nothing else (docs/faults.md).
//
// Every sample file and shard is padded with data to a multiple of
// kRecordAlignment, so an O_DIRECT read of the aligned span covering a
// sample never passes the end of its file (a filesystem allocates whole
// blocks anyway: the device reads the same bytes either way). Every sample
// starts with a header naming (seed, sample id), so a reader can tell it got
// the right bytes; the rest is incompressible and never dedupable, unless the
// spec asks for reducible data (compressibility, dedup: ReducibleFiller in
// 4 KiB units, each file one stream; a header makes its unit unique).
//
// Thread-safety: DatasetLayout is immutable after construction; the free
// functions are safe to call from several threads on distinct files.
//
// Where each part lives: the spec and layout in dataset.cc, the manifest's
// format in dataset_manifest.cc, the folder (inspect, lock, complete) in
// dataset_folder.cc, regeneration in dataset_regenerate.cc, the data files
// (generate, open, cache pass) in dataset_files.cc, the descriptor forms in
// dataset_at_fd.cc.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "harness/core/status.h"
#include "harness/engines/data_fill.h"
#include "harness/store/store.h"

namespace iofab {

enum class DatasetLayoutKind { kFiles, kShards };
// kDlioProduct: DLIO's data generator's sizes (data_generator/data_generator.py get_dimension, config.py
// derive_configurations): two independent normal draws d1, d2 of mean int(sqrt(sample_size)) and stdev
// sample_size_stdev / 2 / sqrt(sample_size), the size max(int(d1), 1) x max(int(d2), 1).
enum class SizeDistribution { kFixed, kNormal, kLognormal, kDlioProduct };

constexpr uint64_t kRecordAlignment = 4096;
constexpr size_t kSampleHeader = 16;
// Sizes are kept in 32 bits, and the generator writes a sample file through one buffer of its size;
// the loader reads a sample longer than one request (IoRequest lengths are 32 bits) in several.
constexpr uint64_t kMaxSampleSize = 1ULL << 30;
constexpr const char* kManifestName = "iofab-dataset.json";
constexpr const char* kDataFolder = "data";
constexpr const char* kDatasetLockName = "iofab-dataset.lock";

struct DatasetSpec {
  DatasetLayoutKind layout = DatasetLayoutKind::kShards;
  uint64_t num_samples = 0;
  uint64_t sample_size = 0;  // fixed size, or the distribution's mean
  SizeDistribution distribution = SizeDistribution::kFixed;
  uint64_t sample_size_stdev = 0;
  uint64_t sample_size_min = 1;  // draws are clamped to [min, max]
  uint64_t sample_size_max = 0;  // 0 until resolve_size_bounds()
  uint64_t seed = 1;
  uint64_t files_per_dir = 1024;      // files layout
  uint64_t samples_per_shard = 1024;  // shards layout
  // compressibility and dedup of the sample data (headers aside), in kRecordAlignment units; off by
  // default, and then absent from to_json, so a dataset made before the option existed is still reused.
  Reducibility reduce;

  // Fills sample_size_max when 0: the size itself when fixed, else mean + 6 stdev (dlio_product: the
  // square of its side's mean + 6 stdev), capped at kMaxSampleSize.
  void resolve_size_bounds();
  // What the manifest records and reuse compares: every field that changes the bytes.
  nlohmann::json to_json() const;
};

const char* layout_name(DatasetLayoutKind k);
const char* distribution_name(SizeDistribution d);
// The distribution a name gives ("fixed", "normal", "lognormal", "dlio_product"); false for another name.
bool parse_distribution(std::string_view name, SizeDistribution* out);

// Bytes the dataset of spec takes on disk (padding included), without
// building its layout: what the free-space preflight counts.
uint64_t dataset_bytes_on_disk(DatasetSpec spec);

// The size of sample i: a pure function of the spec and i.
uint32_t draw_sample_size(const DatasetSpec& spec, uint64_t sample);
// The first kSampleHeader bytes of sample i (a sample shorter than that holds a prefix).
void sample_header(const DatasetSpec& spec, uint64_t sample, unsigned char out[kSampleHeader]);

// The names of a spec's files below data/, without drawing any size: O(1) to build whatever the
// spec claims, so a manifest's spec can be checked against the folder before anything trusts it.
class DatasetNames {
 public:
  explicit DatasetNames(const DatasetSpec& spec);
  // Sample files (files layout) or shards.
  uint64_t num_files() const { return num_files_; }
  // Path of file f below data/: "shard-000012", or "d0003/s00003172" (folders first).
  std::string file_path(uint64_t file) const;
  // The folder part of file_path ("" when the file sits directly in data/).
  std::string folder_of(uint64_t file) const;
  std::string name_of(uint64_t file) const;
  // True when path (below data/) is file_path(f) of some file f of the spec.
  bool names_file(std::string_view path) const;
  // True when path (below data/) is a folder the spec's files sit in (a prefix of some folder_of(f)).
  bool names_folder(std::string_view path) const;

 private:
  DatasetLayoutKind layout_;
  uint64_t files_per_dir_ = 2;
  uint64_t num_files_ = 0;
  unsigned levels_ = 0;  // files layout: folder levels below data/
  unsigned dir_digits_ = 1;
  unsigned name_digits_ = 1;
};

// Where every sample lives. Building it draws every size: O(num_samples)
// time, and 4 bytes per sample (12 for shards) of memory.
class DatasetLayout {
 public:
  explicit DatasetLayout(const DatasetSpec& spec);

  const DatasetSpec& spec() const { return spec_; }
  uint64_t num_samples() const { return spec_.num_samples; }
  // Sample files (files layout) or shards.
  uint64_t num_files() const { return num_files_; }
  uint64_t file_of(uint64_t sample) const {
    return spec_.layout == DatasetLayoutKind::kFiles ? sample : sample / spec_.samples_per_shard;
  }
  uint64_t offset_of(uint64_t sample) const {
    return spec_.layout == DatasetLayoutKind::kFiles ? 0 : offsets_[sample];
  }
  uint32_t size_of(uint64_t sample) const { return sizes_[sample]; }
  // Size of the file on disk, padded to kRecordAlignment.
  uint64_t file_bytes(uint64_t file) const;
  // Samples [first_sample(f), first_sample(f) + samples_in(f)) live in file f.
  uint64_t first_sample(uint64_t file) const;
  uint64_t samples_in(uint64_t file) const;
  uint64_t total_bytes() const { return total_bytes_; }    // on disk
  uint64_t sample_bytes() const { return sample_bytes_; }  // the samples alone
  uint32_t max_sample_size() const { return max_size_; }
  // The longest aligned span covering one sample: what an O_DIRECT reader's buffer must hold.
  uint64_t max_aligned_span() const;

  // Path of file f below data/: "shard-000012", or "d0003/s00003172" (folders first).
  std::string file_path(uint64_t file) const { return names_.file_path(file); }
  // The folder part of file_path ("" when the file sits directly in data/).
  std::string folder_of(uint64_t file) const { return names_.folder_of(file); }
  std::string name_of(uint64_t file) const { return names_.name_of(file); }
  const DatasetNames& names() const { return names_; }

 private:
  DatasetSpec spec_;
  std::vector<uint32_t> sizes_;
  std::vector<uint64_t> offsets_;      // shards: offset of each sample in its shard
  std::vector<uint64_t> shard_bytes_;  // shards: padded size of each shard
  uint64_t num_files_ = 0;
  uint64_t total_bytes_ = 0;
  uint64_t sample_bytes_ = 0;
  uint32_t max_size_ = 0;
  DatasetNames names_;
};

// ---- the dataset's folder ----
//
// A dataset lives in a folder of a Store: root ("" for the store's root)
// holds the manifest, the lock and data/. The phase's own folder is a folder
// of the run's store; a dataset_dir is the root of a POSIX store of its own.

enum class DatasetDirState {
  kEmpty,    // nothing there: generate
  kMatches,  // a complete iofab dataset of this spec, every file present at its size: reuse
  kStale,    // an iofab dataset, but incomplete, of another spec or damaged: regenerate
  kForeign,  // holds something iofab did not make: refuse
};

// Looks at the folder root; *why explains every state but kEmpty and kMatches. A complete manifest
// whose spec names more files than data/ holds describes another folder (or was edited): kForeign, so
// nothing is removed on its word. stop, once set, ends a walk over files with Interrupted.
Status inspect_dataset_dir(Store& store, std::string_view root, const DatasetLayout& layout,
                           DatasetDirState* state, std::string* why, const std::atomic<bool>* stop = nullptr);

// Takes the dataset folder's lock (kDatasetLockName, held while *lock lives)
// without waiting: Invalid naming shown (the folder as the user named it)
// when another run holds it. On a filesystem without locks (Lustre mounted
// noflock) it succeeds with *lock null: nothing keeps two runs apart there.
Status lock_dataset_dir(Store& store, std::string_view root, const std::string& shown,
                        std::unique_ptr<StoreLock>* lock);
// Lets go of *lock and removes the lock file when taking it made that file, so a refused folder is
// left as it was found.
void remove_dataset_lock(Store& store, std::string_view root, std::unique_ptr<StoreLock>* lock);

// Makes root ready to generate into (only ever after inspect_dataset_dir
// said kEmpty or kStale): removes the files an old manifest lists (and the
// folders it made, once empty), writes an incomplete manifest of layout, and
// creates data/. A file iofab did not make stays: noted in *notes, or
// Invalid when it sits where layout puts one of its files.
// The old files are found by walking data/ (what the folder holds bounds the work, whatever a
// manifest claims) and removed when the old spec names them. stop, once set, ends it with Interrupted.
Status prepare_dataset_dir(Store& store, std::string_view root, const DatasetLayout& layout,
                           std::vector<std::string>* notes, const std::atomic<bool>* stop = nullptr);

// Rewrites the manifest as complete (temp file, sync, commit, sync of the folder).
Status complete_manifest(Store& store, std::string_view root, const DatasetLayout& layout,
                         double generate_seconds);

struct GenerateOptions {
  int rank = 0;          // files f with f % ranks == rank are this rank's (whole shards,
  int ranks = 1;         //   or runs of 64 sample files)
  unsigned threads = 1;  // writer threads on this rank
  const std::atomic<bool>* stop = nullptr;
  std::atomic<uint64_t>* progress = nullptr;  // bytes written, for the console
};

// Writes this rank's part of the folder data (root's data/) through the
// store's engine (psync's buffered writes on a filesystem), then one
// Store::sync_all so the data is durable and its cached pages can be
// dropped. On an object store each file is an object, committed as it ends
// (StoreCaps::commit_per_file). *bytes: bytes written.
Status generate_dataset_part(Store& store, std::string_view data, const DatasetLayout& layout,
                             const GenerateOptions& opts, uint64_t* bytes);

// Opens file f of the dataset in the folder data for reading (O_DIRECT when direct). Its size comes
// from the layout (OpenOptions::known_size): on an object store no request goes out before the read.
Status open_dataset_file(Store& store, std::string_view data, const DatasetLayout& layout, uint64_t file,
                         bool direct, StoreFile* out);

// Page-cache state of the files f with f % parts == part: optionally drops
// their cached pages first (drop_cached_pages), then counts how many of
// their bytes are resident (mincore). A refused drop is noted, not fatal.
// Whether the dataset's reads can come from this host's page cache: its store's files are descriptors (a
// filesystem). An object store's are objects read over the network: dataset_cache_pass counts nothing
// there, and the phase says why.
inline bool dataset_has_page_cache(const Store& store) { return store.caps().engine == nullptr; }

struct CacheCounts {
  uint64_t files = 0;
  uint64_t bytes = 0;
  uint64_t resident_bytes = 0;
  std::string drop_error;  // the first refusal, empty when every drop was accepted
};
Status dataset_cache_pass(Store& store, std::string_view data, const DatasetLayout& layout, uint64_t part,
                          uint64_t parts, bool drop, CacheCounts* out);

}  // namespace iofab
