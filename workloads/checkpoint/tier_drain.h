// The drain of a two-tier checkpoint: a background thread per rank copies the
// files of this rank's committed local step (tier_local.h) into the step's
// folder on the shared target, step-N.tmp/, each synced. It knows no layout:
// it copies every file of the local step folder except the commit file
// (step_commit_file_name()), which the shared side writes itself, last, when
// rank 0 commits the step from every rank's part (commit.h), exactly as a
// single-tier step commits.
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

namespace iofab {

// The file whose presence makes a step folder a checkpoint, written last: manifest.json for the
// shards layout. A layout with another commit file (DCP's .metadata) returns that.
std::string_view step_commit_file_name();

struct DrainSpec {
  Store* local = nullptr;
  std::string local_folder;  // holds the committed step-N/
  Store* shared = nullptr;
  std::string shared_folder;  // gets step-N.tmp/
  uint64_t step = 0;
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
