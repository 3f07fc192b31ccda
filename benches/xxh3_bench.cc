// Speed of XXH3_64bits, the checksum restore verification uses: it must stay
// well above the read bandwidth it checks, or verification becomes the bottleneck.
#include <benchmark/benchmark.h>
#include <xxhash.h>

#include <cstdint>
#include <vector>

#include "harness/engines/data_fill.h"

namespace iofab {
namespace {

void BM_Xxh3(benchmark::State& state) {
  const auto len = static_cast<size_t>(state.range(0));
  std::vector<unsigned char> buf(len);
  BlockFiller(7).fill(buf.data(), len);
  for (auto _ : state) {
    XXH64_hash_t h = XXH3_64bits(buf.data(), len);
    benchmark::DoNotOptimize(h);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(len));
}
BENCHMARK(BM_Xxh3)->Arg(1 << 20)->Arg(16 << 20);

}  // namespace
}  // namespace iofab
