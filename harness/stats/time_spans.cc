#include "harness/stats/time_spans.h"

#include <algorithm>

namespace iofab {

std::vector<TimeSpan> merge_spans(std::vector<TimeSpan> spans) {
  std::erase_if(spans, [](const TimeSpan& s) { return s.end <= s.start; });
  std::sort(spans.begin(), spans.end(), [](const TimeSpan& a, const TimeSpan& b) { return a.start < b.start; });
  std::vector<TimeSpan> out;
  for (const TimeSpan& s : spans) {
    if (!out.empty() && s.start <= out.back().end) {
      out.back().end = std::max(out.back().end, s.end);
    } else {
      out.push_back(s);
    }
  }
  return out;
}

uint64_t spans_length(const std::vector<TimeSpan>& merged) {
  uint64_t sum = 0;
  for (const TimeSpan& s : merged) sum += s.end - s.start;
  return sum;
}

uint64_t spans_overlap(const std::vector<TimeSpan>& a, const std::vector<TimeSpan>& b) {
  uint64_t sum = 0;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const uint64_t lo = std::max(a[i].start, b[j].start);
    const uint64_t hi = std::min(a[i].end, b[j].end);
    if (hi > lo) sum += hi - lo;
    // The span that ends first can meet nothing further on.
    if (a[i].end < b[j].end) {
      ++i;
    } else {
      ++j;
    }
  }
  return sum;
}

bool spans_cover(const std::vector<TimeSpan>& merged, uint64_t t) {
  auto it = std::upper_bound(merged.begin(), merged.end(), t,
                             [](uint64_t v, const TimeSpan& s) { return v < s.start; });
  if (it == merged.begin()) return false;
  --it;
  return t >= it->start && t < it->end;
}

}  // namespace iofab
