// The PyTorch DataLoader profile of train_read (loader: pytorch): one rank's
// torch.utils.data.DataLoader over a map-style Dataset whose __getitem__ is
// torch.frombuffer(bytearray(open(path, 'rb').read()), dtype=torch.uint8), default_collate, shuffled,
// as torch 1.13's utils/data/dataloader.py (_MultiProcessingDataLoaderIter), _utils/worker.py,
// _utils/fetch.py and _utils/collate.py do it:
// - num_workers workers (threads here; each spends a worker's start-up CPU from the calibration when it
//   starts: every epoch, or once with persistent_workers);
// - the main loop hands out whole batches (index lists) round-robin, batch b to worker b % num_workers,
//   at most num_workers x prefetch_factor outstanding, one more each time it takes a batch, and takes
//   the batches back in order (a batch that comes early waits in a reorder buffer);
// - a worker builds its batch alone, one sample read at a time (torch_sample_io.h: CPython's syscalls,
//   the bytearray copy), then collates it into a shared-memory buffer and passes its descriptor to the
//   main loop over a socket;
// - the interpreter's CPU beyond those real syscalls and copies (the calibration's spin costs: per
//   sample, per byte, per batch, per batch byte, per batch in the main loop) is spent spinning on the
//   thread's CPU clock, never sleeping, so on a busy machine the emulation competes for cores as the real
//   processes do;
// - num_workers 0: the main loop reads and collates itself (a heap buffer, no handoff), as torch does;
// - pin_memory: one copy of each batch in the main loop (torch with CUDA pins each batch; CPU-only torch
//   ignores pin_memory, which the report says).
// Its counters (LoaderProfileCounters) say what it did: syscalls per sample and per batch by name, reads
// per sample and their sizes, reads in flight, batches outstanding, which worker built each batch.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/core/status.h"
#include "harness/fs/torch_sample_io.h"
#include "workloads/calibration/loader_costs.h"
#include "workloads/dataset/dataset.h"
#include "workloads/train_read/sampler.h"
#include "workloads/train_read/torch_loader_params.h"
#include "workloads/train_read/train_loader.h"

namespace iofab {

struct TorchProfileConfig {
  TorchLoaderParams params;
  LoaderCosts spin;        // CPU seconds to spend beyond the profile's own work: main_batch_s, worker_start_s
  SpinCurve sample_spin;   // ... per sample, by its bytes
  SpinCurve collate_spin;  // ... per batch, by the batch's bytes
  uint64_t compute_ns = 0;
  bool drop_after_use = false;
  uint64_t series_interval_ns = 100'000'000;
};

struct LoaderProfileCounters {
  SyscallCounts sample_sys;  // the workers' per-sample syscalls
  SyscallCounts batch_sys;   // the workers' per-batch syscalls (shared memory, handoff, index receipt)
  SyscallCounts main_sys;    // the main loop's (index handout, receipt, mapping, release)
  uint64_t samples = 0;
  uint64_t batches = 0;
  uint64_t reads = 0;
  uint64_t asked_bytes = 0;
  uint64_t empty_reads = 0;
  uint64_t sample_bytes = 0;  // bytes read from the samples' files (whole files, as Python reads them)
  uint32_t max_in_flight_worker = 0;
  uint32_t max_in_flight_total = 0;
  uint64_t max_outstanding = 0;       // batches handed out and not yet taken back
  uint64_t outstanding_limit = 0;     // num_workers x prefetch_factor
  uint64_t arrived_out_of_order = 0;  // batches that came before an earlier one (held, then delivered)
  uint64_t worker_starts = 0;
  uint64_t pinned_bytes = 0;
  // The last epoch's: the worker that built each batch, and the batches in the order the loop took them.
  std::vector<uint32_t> worker_of_batch;
  std::vector<uint64_t> delivered;
  nlohmann::json to_json() const;
};

class TorchLoaderProfile {
 public:
  TorchLoaderProfile(const TorchLoaderProfile&) = delete;
  TorchLoaderProfile& operator=(const TorchLoaderProfile&) = delete;
  ~TorchLoaderProfile();

  // data_path: the dataset's data/ folder as a path (the Dataset opens path names, as Python does).
  static Status create(const TorchProfileConfig& config, const DatasetLayout& layout, std::string data_path,
                       std::unique_ptr<TorchLoaderProfile>* out);

  // One epoch of plan, as TrainLoader::run_epoch: t0 the epoch's start, out its figures.
  Status run_epoch(const BatchPlan& plan, uint64_t t0, const std::atomic<bool>& stop,
                   std::atomic<uint64_t>* progress, EpochStats* out);

  const LoaderProfileCounters& counters() const { return counters_; }

 private:
  struct Worker;
  struct Epoch;
  class MainLoop;
  TorchLoaderProfile(const TorchProfileConfig& config, const DatasetLayout& layout, std::string data_path);
  Status start_workers(const std::atomic<bool>& stop);
  // Ends the workers; absorb (may be null): their figures go there before they go.
  void stop_workers(EpochStats* absorb);
  void worker_loop(Worker& w);
  Status build_batch(Worker& w, const Epoch& e, uint64_t b);
  Status read_batch(const Epoch& e, uint64_t b, Worker& w, std::vector<std::vector<unsigned char>>* samples);
  void absorb_workers(EpochStats* out);

  TorchProfileConfig config_;
  const DatasetLayout& layout_;
  std::string data_path_;
  int results_[2] = {-1, -1};  // workers send on [1], the main loop receives on [0]
  std::vector<std::unique_ptr<Worker>> workers_;
  std::unique_ptr<Worker> inline_;  // num_workers 0: the main loop's own reading state
  std::atomic<const Epoch*> epoch_{nullptr};
  std::atomic<uint32_t> in_flight_{0};
  const std::atomic<bool>* stop_ = nullptr;
  LoaderProfileCounters counters_;
};

}  // namespace iofab
