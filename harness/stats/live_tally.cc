#include "harness/stats/live_tally.h"

#include <array>
#include <bit>

namespace iofab {
namespace {

// Process-wide: the hook in IoDriver reaches it without a pointer through every phase's options.
std::array<std::atomic<uint64_t>, LiveTally::kBuckets> g_counts{};

}  // namespace

std::atomic<bool> LiveTally::enabled_{false};

size_t LiveTally::bucket_of(uint64_t ns) {
  if (ns < kSub) return static_cast<size_t>(ns);
  const int e = 63 - std::countl_zero(ns);  // >= 5
  const uint64_t sub = (ns >> (e - 5)) & (kSub - 1);
  return kSub + static_cast<size_t>(e - 5) * kSub + static_cast<size_t>(sub);
}

uint64_t LiveTally::midpoint(size_t bucket) {
  if (bucket < kSub) return bucket;
  const size_t e = (bucket - kSub) / kSub + 5;
  const uint64_t sub = (bucket - kSub) % kSub;
  const uint64_t low = (kSub + sub) << (e - 5);
  const uint64_t width = uint64_t{1} << (e - 5);
  return low + width / 2;
}

void LiveTally::record(uint64_t ns) {
  // One add, no shared total: threads whose I/Os land in different buckets do not contend for a line.
  g_counts[bucket_of(ns)].fetch_add(1, std::memory_order_relaxed);
}

LiveTally::Snapshot LiveTally::snapshot() {
  Snapshot s;
  s.counts.resize(kBuckets);
  for (size_t i = 0; i < kBuckets; ++i) {
    s.counts[i] = g_counts[i].load(std::memory_order_relaxed);
    s.ops += s.counts[i];
  }
  return s;
}

Histogram LiveTally::between(const Snapshot& a, const Snapshot& b) {
  Histogram h;
  for (size_t i = 0; i < kBuckets && i < b.counts.size(); ++i) {
    const uint64_t before = i < a.counts.size() ? a.counts[i] : 0;
    if (b.counts[i] > before) h.record_n(midpoint(i), b.counts[i] - before);
  }
  return h;
}

}  // namespace iofab
