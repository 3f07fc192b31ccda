// Time spans (CLOCK_MONOTONIC ns) as sets: merged, measured, intersected.
// What splits a phase's own timeline by another phase's windows (a
// loader's compute time inside a checkpoint's drains).
#pragma once

#include <cstdint>
#include <vector>

namespace iofab {

struct TimeSpan {
  uint64_t start = 0;
  uint64_t end = 0;  // exclusive; a span with end <= start is empty
};

// Sorted, with overlapping and touching spans joined and empty ones dropped.
std::vector<TimeSpan> merge_spans(std::vector<TimeSpan> spans);
// Total length of merged spans.
uint64_t spans_length(const std::vector<TimeSpan>& merged);
// Length of the intersection of two merged sets.
uint64_t spans_overlap(const std::vector<TimeSpan>& a, const std::vector<TimeSpan>& b);
// Whether t lies in one of the merged spans (start <= t < end).
bool spans_cover(const std::vector<TimeSpan>& merged, uint64_t t);

}  // namespace iofab
