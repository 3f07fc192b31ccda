// The CPU a verified synchronous read costs beyond its hash: restore at queue depth 1 (psync) hashes block
// b while block b + 1 is read, on a thread of its own (BackgroundXxh3), and every handoff wakes that
// thread. Each iteration "reads" one 1 MiB block (the thread blocks for arg 0 microseconds, as in a pread
// from a device) and verifies it: inline (the hash between two reads), or handed to the background hasher.
// Process CPU time (every thread) per block is the figure to compare: the handoff's cost is the background
// row's CPU minus the inline row's. Measured on the 2-core VM while other sessions compiled: inline 138 us
// of CPU and 726 us of wall time per block, beside 153 us and 624 us (medians of 3); another run 196 and
// 195 us of CPU, 758 and 578 us of wall time: a handoff (a futex wake and a context switch) costs 0 to 15
// us of CPU per block, at most a tenth of the hash, and the hash beside the read saves 100 to 180 us of
// wall time per block.
#include <benchmark/benchmark.h>
#include <time.h>

#include <cstdint>
#include <vector>

#include "harness/engines/data_fill.h"
#include "workloads/checkpoint/background_xxh3.h"
#include "workloads/checkpoint/xxh3.h"

namespace iofab {
namespace {

constexpr size_t kBlock = 1 << 20;
constexpr size_t kBlocks = 64;  // 64 MiB: past the caches, as a block just read by DMA is

std::vector<unsigned char>& blocks() {
  static std::vector<unsigned char> buf = [] {
    std::vector<unsigned char> b(kBlock * kBlocks);
    DataStream(7).fill(b.data(), b.size(), 0);
    return b;
  }();
  return buf;
}

// The thread blocks as in a synchronous read of a device.
void device_read(int64_t us) {
  const timespec ts{0, static_cast<long>(us * 1000)};
  nanosleep(&ts, nullptr);
}

void BM_VerifyInline(benchmark::State& state) {
  auto& buf = blocks();
  StreamingXxh3 hash;
  size_t b = 0;
  for (auto _ : state) {
    device_read(state.range(0));
    hash.update(buf.data() + (b++ % kBlocks) * kBlock, kBlock);
  }
  benchmark::DoNotOptimize(hash.digest());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kBlock));
}
BENCHMARK(BM_VerifyInline)->Arg(500)->MeasureProcessCPUTime()->UseRealTime();

void BM_VerifyBeside(benchmark::State& state) {
  auto& buf = blocks();
  BackgroundXxh3 hasher;
  size_t b = 0;
  for (auto _ : state) {
    device_read(state.range(0));
    hasher.feed(buf.data() + (b++ % kBlocks) * kBlock, kBlock);
  }
  benchmark::DoNotOptimize(hasher.digest());
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kBlock));
}
BENCHMARK(BM_VerifyBeside)->Arg(500)->MeasureProcessCPUTime()->UseRealTime();

}  // namespace
}  // namespace iofab
