// Speed of verification, GB/s per core (one thread), for every block size the phases read: 4 KiB,
// 128 KiB, 1 MiB and 16 MiB. BM_Xxh3: XXH3_64bits of a block, the checksum restore compares with the
// manifest's (goal, issue 33: >= 20 GB/s per core, well above the read bandwidth it checks).
// BM_CheckTensorBytes: a block made again and compared (model_load's and a resharded restore's check of
// every byte), generation plus memcmp.
#include <benchmark/benchmark.h>
#include <xxhash.h>

#include <cstdint>
#include <vector>

#include "harness/engines/data_fill.h"
#include "workloads/checkpoint/tensor_content.h"
#include "workloads/checkpoint/xxh3.h"

namespace iofab {
namespace {

void block_sizes(benchmark::internal::Benchmark* b) {
  for (int64_t len : {int64_t{4} << 10, int64_t{128} << 10, int64_t{1} << 20, int64_t{16} << 20}) b->Arg(len);
}

void BM_Xxh3(benchmark::State& state) {
  const auto len = static_cast<size_t>(state.range(0));
  std::vector<unsigned char> buf(len);
  DataStream(7).fill(buf.data(), len, 0);
  for (auto _ : state) {
    XXH64_hash_t h = XXH3_64bits(buf.data(), len);
    benchmark::DoNotOptimize(h);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(len));
}
BENCHMARK(BM_Xxh3)->Apply(block_sizes);

// What restore's check runs: StreamingXxh3 (workloads/checkpoint/xxh3.h), through libxxhash's dispatched
// entry points, which take AVX2 or AVX-512 where the CPU has them (BM_Xxh3 above is the SSE2 baseline).
void BM_Xxh3Dispatched(benchmark::State& state) {
  const auto len = static_cast<size_t>(state.range(0));
  std::vector<unsigned char> buf(len);
  DataStream(7).fill(buf.data(), len, 0);
  StreamingXxh3 h;
  for (auto _ : state) {
    h.reset();
    h.update(buf.data(), len);
    benchmark::DoNotOptimize(h.digest());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(len));
}
BENCHMARK(BM_Xxh3Dispatched)->Apply(block_sizes);

void BM_CheckTensorBytes(benchmark::State& state) {
  const auto len = static_cast<size_t>(state.range(0));
  std::vector<unsigned char> buf(len);
  fill_tensor_bytes(3, 1, 99, 0, buf.data(), len);
  uint64_t bad = 0;
  for (auto _ : state) {
    const bool ok = check_tensor_bytes(3, 1, 99, 0, buf.data(), len, &bad);
    benchmark::DoNotOptimize(ok);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(len));
}
BENCHMARK(BM_CheckTensorBytes)->Apply(block_sizes);

}  // namespace
}  // namespace iofab
