// Speed of the write-data generator, GB/s per core (one thread), for every block size the phases write:
// 4 KiB (train_read's small samples, metadata files), 128 KiB, 1 MiB (ingest's and checkpoint's default
// block) and 16 MiB. Every write makes its block in full just before it goes (data_fill.h), so this is the
// figure to set beside write bandwidth. Goal (issue 33): >= 10 GB/s per core. BM_GeneratePortable is the
// speed on a CPU without AES instructions; with compressibility or dedup set, ReducibleFiller::fill runs
// instead (BM_Reducible).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>

#include "harness/engines/counter_blocks.h"
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

// The block sizes the phases write.
void block_sizes(benchmark::internal::Benchmark* b) {
  for (int64_t len : {int64_t{4} << 10, int64_t{128} << 10, int64_t{1} << 20, int64_t{16} << 20}) b->Arg(len);
}

void BM_Generate(benchmark::State& state) {
  const auto len = static_cast<size_t>(state.range(0));
  IoBuffers bufs = make_buffer(len);
  const DataStream data(data_key(42, 0, 0));
  uint64_t offset = 0;
  for (auto _ : state) {
    data.fill(bufs.at(0), len, offset);  // the next block of the file, as a writer makes it
    offset += len;
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(len));
  state.SetLabel(counter_blocks_in_hardware() ? "AES-NI" : "portable");
}
BENCHMARK(BM_Generate)->Apply(block_sizes);

void BM_GeneratePortable(benchmark::State& state) {
  const auto len = static_cast<size_t>(state.range(0));
  IoBuffers bufs = make_buffer(len);
  uint64_t block = 0;
  for (auto _ : state) {
    counter_blocks_portable(7, block, len / 16, static_cast<unsigned char*>(bufs.at(0)));
    block += len / 16;
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(len));
}
BENCHMARK(BM_GeneratePortable)->Arg(128 << 10);

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
