// Speed of the write-data generator: fill() runs once per worker buffer, but
// stamp() runs before every write, so both must stay far above storage rates.
// With compressibility or dedup set, ReducibleFiller::fill runs before every
// write instead of stamp(): BM_Reducible is the figure to set beside BM_Stamp.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>

#include "harness/engines/data_fill.h"
#include "harness/engines/io_buffers.h"

namespace iofab {
namespace {

IoBuffers make_buffer(size_t len) {
  IoBuffers bufs;
  Status st = IoBuffers::allocate(1, len, &bufs);
  if (!st.ok()) {
    std::fprintf(stderr, "IoBuffers::allocate: %s\n", st.message().c_str());
    std::abort();
  }
  return bufs;
}

void BM_Fill(benchmark::State& state) {
  const auto len = static_cast<size_t>(state.range(0));
  IoBuffers bufs = make_buffer(len);
  BlockFiller filler(42);
  for (auto _ : state) {
    filler.fill(bufs.at(0), len);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(len));
}
BENCHMARK(BM_Fill)->Arg(64 << 10)->Arg(1 << 20)->Arg(16 << 20);

void BM_Stamp(benchmark::State& state) {
  const auto len = static_cast<size_t>(state.range(0));
  IoBuffers bufs = make_buffer(len);
  BlockFiller filler(42);
  filler.fill(bufs.at(0), len);
  uint64_t block = 0;
  for (auto _ : state) {
    filler.stamp(bufs.at(0), len, block++);
    benchmark::ClobberMemory();
  }
  // Bytes made unique per second: the figure to compare with write bandwidth.
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(len));
}
BENCHMARK(BM_Stamp)->Arg(64 << 10)->Arg(1 << 20)->Arg(16 << 20);

void BM_Reducible(benchmark::State& state) {
  const auto len = static_cast<size_t>(state.range(0));
  const Reducibility r{static_cast<double>(state.range(1)) / 100, static_cast<double>(state.range(2)) / 100};
  IoBuffers bufs = make_buffer(len);
  const ReducibleFiller filler(42, r);
  uint64_t block = 0;
  for (auto _ : state) {
    filler.fill(bufs.at(0), len, 0, block++);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(len));
}
// (block bytes, compressibility %, dedup %)
BENCHMARK(BM_Reducible)
    ->Args({1 << 20, 0, 30})
    ->Args({1 << 20, 50, 0})
    ->Args({1 << 20, 80, 0})
    ->Args({4 << 10, 50, 30})
    ->Args({64 << 10, 50, 30});

}  // namespace
}  // namespace iofab
