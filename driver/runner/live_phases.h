// The live view of a run (docs/live.md): while each phase runs alone, a thread on every rank wakes every
// interval, reads the rank's counters (Progress, LiveTally) and sends them to rank 0 over a duplicate of
// the run's Comm: the data path never waits for it, and the run's own control-plane calls keep their
// order. Rank 0 merges them into a frame and writes what was asked: a JSON line (--live), a node_exporter
// textfile (--live-openmetrics) and, when stderr is no terminal, a plain line every --progress-every.
// After the phase, rank 0 writes its last line from the report's figures (finished()).
//
// Thread-safety: the runner's thread calls everything here; each Watch owns its thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "driver/runner/live_frame.h"
#include "driver/runner/live_options.h"
#include "harness/comm/comm.h"
#include "harness/phase/phase.h"
#include "harness/results/report.h"
#include "harness/stats/live_tally.h"
#include "harness/telemetry/sampler.h"

namespace iofab {

class LivePhases {
 public:
  // Collective when the ranks watch (live_watch_wanted): duplicates comm for the watchers. On rank 0,
  // opens --live (truncated at a process's first run, appended by --repeat's next).
  // stop: the run's stop flag; once set the watchers make no more calls, and one waiting for a rank gives
  // up at once (the report comes first: a launcher kills the ranks about a second after its signal).
  LivePhases(Comm& comm, const LiveOptions& opts, bool quiet, std::string run_id,
             const std::atomic<bool>& stop);
  ~LivePhases();
  LivePhases(const LivePhases&) = delete;
  LivePhases& operator=(const LivePhases&) = delete;

  // The running phase's watcher: its thread stops (after a last interval) when it is destroyed.
  class Watch;
  std::unique_ptr<Watch> watch(const std::string& phase, Progress& progress);
  // Rank 0: the phase's last line, with the report's figures (pr after settle_phase).
  void finished(const PhaseReport& pr);

  // Rank 0's host's sampler while a step runs (its latest sample goes into the frames), else null.
  const TelemetrySampler* sampler = nullptr;

 private:
  friend class Watch;
  void emit(const LiveFrame& f, bool print_progress, uint64_t since_bytes, double since_s);

  Comm& comm_;
  const std::atomic<bool>& stop_;
  LiveOptions opts_;
  bool wanted_ = false;
  bool plain_ = false;                // rank 0's plain progress lines (stderr is no terminal)
  std::unique_ptr<Comm> watch_comm_;  // null: one rank, or the MPI library gave no threads
  std::string run_id_;
  std::FILE* live_ = nullptr;
  std::mutex mu_;
  uint64_t last_bytes_ = 0, last_ops_ = 0;  // the last frame's totals, for finished()
};

class LivePhases::Watch {
 public:
  Watch(LivePhases& owner, std::string phase, Progress& progress);
  ~Watch();
  Watch(const Watch&) = delete;
  Watch& operator=(const Watch&) = delete;

 private:
  void loop();
  bool round(bool ending, uint64_t t_ns);
  RankTick tick();

  LivePhases& owner_;
  std::string phase_;
  Progress& progress_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
  // The watcher thread's own state.
  uint64_t start_ns_ = 0, last_ns_ = 0, last_print_ns_ = 0, last_print_bytes_ = 0;
  uint64_t ops0_ = 0;
  LiveTally::Snapshot last_snap_;
  std::vector<RankTick> previous_;
};

}  // namespace iofab
