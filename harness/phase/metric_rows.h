// A phase's metric rows in parts: a table of many rows, each a designated initializer of four named fields,
// is written as a few functions of at most a screen each (the rows stay in the report's order).
#pragma once

#include <initializer_list>
#include <vector>

#include "harness/phase/phase.h"

namespace iofab {

// The parts' rows one after the other.
inline std::vector<MetricInfo> joined_rows(std::initializer_list<std::vector<MetricInfo>> parts) {
  std::vector<MetricInfo> rows;
  for (const std::vector<MetricInfo>& part : parts) rows.insert(rows.end(), part.begin(), part.end());
  return rows;
}

}  // namespace iofab
