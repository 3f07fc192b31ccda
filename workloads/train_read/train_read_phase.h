// Phase `train_read`: the data loader of a training job. A dataset is
// generated (timed on its own) or reused, then every epoch each rank reads
// its disjoint share of a fresh permutation in batches, with read_threads
// readers prefetching ahead of an emulated accelerator that computes for
// compute_per_batch on each batch; the order samples are read in is that
// of a map-style or a streaming reader (epoch_order.h). Reports samples/s, bytes/s, sample
// latency, batch wait and AU (accelerator utilisation), per epoch and
// overall, and how much of the dataset the page cache held at each epoch's
// start beside what the device really read, so cached figures never pass
// for storage figures. On an object store (an s3:// target) the dataset is
// objects below the run prefix, a sample a GET (ranged in a shard), and the
// requests' figures join the phase's; there is no page cache to drop or
// count there. See docs/phases/train_read.md and docs/object-storage.md.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/phase/phase.h"
#include "workloads/dataset/dataset.h"
#include "workloads/train_read/epoch_order.h"
#include "workloads/train_read/torch_loader_params.h"
#include "workloads/train_read/train_loader.h"

namespace iofab {

class ParamReader;

enum class DropCache { kEveryEpoch, kFirstEpoch, kNever };
// Dropping each sample's pages once it is read (posix_fadvise DONTNEED on its range), so a buffered
// epoch never finds a sample in the page cache. kAuto: on when reads are buffered and the dataset is
// under 5x the hosts' memory (MLPerf's rule, which keeps hits out at full size).
enum class DropAfterUse { kAuto, kOn, kOff };

struct TrainReadParams {
  DatasetSpec dataset;
  std::string dataset_dir;  // empty: <run folder>/<phase name>/
  std::string engine = "auto";
  bool direct = false;
  MapAdvice madvise = MapAdvice::kNone;  // engine mmap: the hint on each mapped sample file or shard
  unsigned read_threads = 1;
  unsigned queue_depth = 8;
  unsigned prefetch = 2;
  // The longest read request: a sample is read in pieces of at most this many bytes (np.load's and
  // TFRecordDataset's 256 KiB in the MLPerf presets).
  uint64_t read_size = kMaxRequestBytes;
  DropAfterUse drop_after_use = DropAfterUse::kOff;
  uint64_t batch_size = 32;
  uint64_t epochs = 2;
  double compute_per_batch = 0;  // seconds
  bool drop_last = false;
  bool to_gpu = false;
  DropCache drop_cache = DropCache::kEveryEpoch;
  uint64_t series_interval_ns = 100'000'000;
  // The access order (epoch_order.h); its seed is the dataset's, or one drawn per run for `random`.
  ReaderKind reader = ReaderKind::kMap;
  OrderKind order = OrderKind::kDefault;
  Shuffle file_shuffle = Shuffle::kOff;
  Shuffle sample_shuffle = Shuffle::kSeed;
  uint64_t shuffle_buffer = 1024;
  // State MLPerf Storage's minimum-dataset-size rule in a warning when the dataset falls short.
  bool mlperf = false;
  // The dataset at 1/scale of the num_samples the suite states (`run --scale N`, or the phase's scale).
  double scale = 1;
  uint64_t full_num_samples = 0;
  // The local cache tier (train_cache.h): empty for none. cache_size 0: room for the whole dataset.
  std::string cache_dir;
  uint64_t cache_size = 0;  // bytes per host
  // After the cached epochs, one more from the source alone: the AU the source would have given.
  bool cache_source_epoch = false;
  // native: iofab's loader (train_loader.h); pytorch: the DataLoader profile (torch_loader_profile.h),
  // with the native loader's storage ceiling beside it.
  LoaderKind loader = LoaderKind::kNative;
  TorchLoaderParams torch;
};

std::unique_ptr<Phase> parse_train_read(ParamReader& r);
const std::vector<MetricInfo>& train_read_metrics();
// What the phase verifies in the bytes it reads: not measured with engine null (PhaseKind::verify_metrics).
inline constexpr std::string_view kTrainReadVerifyMetrics[] = {"corrupt_samples"};
// The metrics a concurrent group sets beside the same phase run alone.
std::span<const std::string_view> train_read_solo_metrics();

// The phase with engines from `make` rather than the engine table (tests
// inject slow or failing engines this way); params as parse_train_read
// would leave them. An empty `make`: the engine `engine` names, made for
// the dataset's store (engine_for_store: s3 on an object store).
std::unique_ptr<Phase> make_train_read_phase(const TrainReadParams& params, EngineFactory make);

}  // namespace iofab
