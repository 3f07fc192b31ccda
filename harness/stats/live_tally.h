// LiveTally: the I/Os this process completes while a live stream watches a phase (--live, the progress
// lines), counted as they happen so a watcher thread can read them mid-phase. The workers' own
// Histograms are merged only at the phase's end; this one is shared, so every count is an atomic add
// (relaxed: a watcher needs no ordering with the data, only eventual counts).
//
// Buckets are log-linear, 32 per power of two (a value reads as its bucket's midpoint: within 1.6%),
// values below 32 ns exact. Off (the default), note() is one relaxed load.
//
// Thread-safety: note() from any thread; snapshot() from any thread (a snapshot taken while I/Os
// complete is a consistent count of some I/Os, each bucket read once).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "harness/stats/histogram.h"

namespace iofab {

class LiveTally {
 public:
  static constexpr size_t kSub = 32;
  static constexpr size_t kBuckets = kSub + (64 - 5) * kSub;

  struct Snapshot {
    uint64_t ops = 0;
    std::vector<uint64_t> counts;  // kBuckets entries, cumulative since the process started
  };

  // On while a watcher reads it; the counts are cumulative and never reset (a watcher subtracts).
  static void set_enabled(bool on) { enabled_.store(on, std::memory_order_relaxed); }
  static bool enabled() { return enabled_.load(std::memory_order_relaxed); }
  // One I/O completed after latency_ns.
  static void note(uint64_t latency_ns) {
    if (enabled_.load(std::memory_order_relaxed)) record(latency_ns);
  }
  static Snapshot snapshot();
  // The I/Os completed between a and b (b later), each at its bucket's midpoint.
  static Histogram between(const Snapshot& a, const Snapshot& b);

  static size_t bucket_of(uint64_t ns);
  static uint64_t midpoint(size_t bucket);

 private:
  static void record(uint64_t ns);
  static std::atomic<bool> enabled_;
};

}  // namespace iofab
