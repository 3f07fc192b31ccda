// Histogram::record runs once per I/O on every worker, so it must stay a few ns: well below the ~1 us of
// the fastest storage I/O it times. percentile() and merge() run once per phase and are shown for scale.
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <benchmark/benchmark.h>

#include "harness/stats/histogram.h"

namespace iofab {
namespace {

// Latencies spread over many buckets (lognormal around 100 us), so the bench is not flattered by one hot
// cache line; 4096 of them, reused, so generating them is not timed.
std::vector<uint64_t> latencies() {
  std::mt19937_64 rng(42);
  std::lognormal_distribution<double> dist(std::log(100'000.0), 1.5);
  std::vector<uint64_t> out(4096);
  for (uint64_t& v : out) v = static_cast<uint64_t>(dist(rng));
  return out;
}

void BM_HistogramRecord(benchmark::State& state) {
  const std::vector<uint64_t> values = latencies();
  Histogram h;
  size_t i = 0;
  for (auto _ : state) {
    h.record(values[i]);
    i = (i + 1) & (values.size() - 1);
  }
  benchmark::DoNotOptimize(h.count());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_HistogramRecord);

void BM_HistogramRecordSameValue(benchmark::State& state) {
  Histogram h;
  uint64_t v = 123'456;
  for (auto _ : state) {
    benchmark::DoNotOptimize(v);
    h.record(v);
  }
  benchmark::DoNotOptimize(h.count());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_HistogramRecordSameValue);

void BM_HistogramPercentile(benchmark::State& state) {
  Histogram h;
  for (uint64_t v : latencies()) h.record(v);
  for (auto _ : state) benchmark::DoNotOptimize(h.percentile(0.999));
}
BENCHMARK(BM_HistogramPercentile);

void BM_HistogramMerge(benchmark::State& state) {
  Histogram a;
  Histogram b;
  for (uint64_t v : latencies()) b.record(v);
  for (auto _ : state) {
    a.merge(b);
    benchmark::DoNotOptimize(a.count());
  }
}
BENCHMARK(BM_HistogramMerge);

}  // namespace
}  // namespace iofab
