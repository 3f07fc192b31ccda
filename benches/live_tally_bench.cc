// LiveTally::note runs once per I/O on every worker while a live output is on (docs/live.md): one relaxed
// atomic add on a shared bucket. Off, it is one relaxed load. Threads(2): workers adding at once.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "harness/stats/live_tally.h"

namespace iofab {
namespace {

// Latencies spread over many buckets (lognormal around 100 us), as histogram_bench.cc takes them.
std::vector<uint64_t> latencies() {
  std::mt19937_64 rng(42);
  std::lognormal_distribution<double> dist(std::log(100'000.0), 1.5);
  std::vector<uint64_t> out(4096);
  for (uint64_t& v : out) v = static_cast<uint64_t>(dist(rng));
  return out;
}

void note_loop(benchmark::State& state, bool on) {
  const std::vector<uint64_t> values = latencies();
  if (state.thread_index() == 0) LiveTally::set_enabled(on);
  size_t i = static_cast<size_t>(state.thread_index()) * 97;
  for (auto _ : state) {
    LiveTally::note(values[i]);
    i = (i + 1) & 4095;
  }
}

void BM_LiveTallyNoteOff(benchmark::State& state) { note_loop(state, false); }
void BM_LiveTallyNoteOn(benchmark::State& state) { note_loop(state, true); }
BENCHMARK(BM_LiveTallyNoteOff)->Threads(1)->Threads(2);
BENCHMARK(BM_LiveTallyNoteOn)->Threads(1)->Threads(2);

// What the watcher does each interval on every rank: read every bucket, and the interval's histogram.
void BM_LiveTallySnapshotAndInterval(benchmark::State& state) {
  LiveTally::Snapshot before = LiveTally::snapshot();
  for (auto _ : state) {
    LiveTally::Snapshot now = LiveTally::snapshot();
    benchmark::DoNotOptimize(LiveTally::between(before, now));
    before = std::move(now);
  }
}
BENCHMARK(BM_LiveTallySnapshotAndInterval);

}  // namespace
}  // namespace iofab
