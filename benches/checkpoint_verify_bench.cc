// Speed of restore's verification as restore runs it: StreamingXxh3 fed one
// block at a time (1 MiB, the default block_size) over a shard. Goal: >= 10e9
// bytes/s per core, well above the read bandwidth it checks.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "harness/engines/data_fill.h"
#include "workloads/checkpoint/xxh3.h"

namespace iofab {
namespace {

void BM_StreamingXxh3(benchmark::State& state) {
  const auto block = static_cast<size_t>(state.range(0));
  constexpr size_t kShard = 64 << 20;  // larger than the caches: bytes come from memory, as after a read
  std::vector<unsigned char> buf(kShard);
  DataStream(7).fill(buf.data(), buf.size(), 0);
  for (auto _ : state) {
    StreamingXxh3 h;
    for (size_t off = 0; off < kShard; off += block) h.update(buf.data() + off, block);
    benchmark::DoNotOptimize(h.digest());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(kShard));
}
BENCHMARK(BM_StreamingXxh3)->Arg(256 << 10)->Arg(1 << 20)->Arg(16 << 20);

}  // namespace
}  // namespace iofab
