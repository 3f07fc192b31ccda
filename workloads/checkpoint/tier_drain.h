// The drain of a two-tier checkpoint: a background thread per rank copies the
// files of this rank's committed local step (tier_local.h) into the step's
// folder on the shared target, where a single-tier writer of the layout
// writes (step-N.tmp/, or step-N/ for dcp), each synced. It knows no file
// names: it copies every file and folder of the local step except the commit
// file (commit_file_name(layout): manifest.json, .metadata for dcp), which
// the shared side writes itself, last, when rank 0 commits the step from
// every rank's part (commit.h), exactly as a single-tier step commits.
//
// Thread-safety: a TierDrain is driven by the phase's thread; the copy runs on
// its own thread, reading the local store and writing the shared one, both
// reentrant.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <thread>

#include "harness/core/status.h"
#include "harness/store/store.h"
#include "workloads/checkpoint/folder_layout.h"

namespace iofab {

struct DrainSpec {
  Store* local = nullptr;
  std::string local_folder;  // holds the committed step-N/
  Store* shared = nullptr;
  std::string shared_folder;  // gets step-N.tmp/ (step-N/ when the layout writes in place)
  uint64_t step = 0;
  CheckpointLayoutKind layout = CheckpointLayoutKind::kShards;
  uint64_t block_size = 1ULL << 20;  // bytes per read and write
  bool direct = false;               // O_DIRECT on the shared side
  const std::atomic<bool>* stop = nullptr;
};

// Copies the step as the spec says, on the calling thread; *bytes gets the bytes copied.
Status drain_step(const DrainSpec& spec, uint64_t* bytes);

class TierDrain {
 public:
  TierDrain() = default;
  ~TierDrain();  // joins
  TierDrain(const TierDrain&) = delete;
  TierDrain& operator=(const TierDrain&) = delete;

  // Starts drain_step(spec) on the drain thread; the previous drain must have been waited for.
  void start(const DrainSpec& spec);
  // True once the drain started last has ended (or none was started).
  bool done() const { return done_.load(); }
  // Joins the drain; its outcome, with its span (start to last sync) and bytes.
  Status wait(uint64_t* drain_ns, uint64_t* bytes);

 private:
  std::thread thread_;
  std::atomic<bool> done_{true};
  Status status_;
  uint64_t ns_ = 0;
  uint64_t bytes_ = 0;
};

}  // namespace iofab
