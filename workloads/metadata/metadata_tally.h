// What one rank measured in one sub-step of the metadata phase, and the
// merge of every rank's on rank 0: the slowest rank's time (mdtest's rate is
// every rank's operations over the time from the barrier before the step to
// the one after it, which the slowest rank sets), latency, errors by errno.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "harness/core/status.h"
#include "harness/stats/histogram.h"

namespace iofab {

// What the create step made before its stonewall fired (IO500's "stonewall items"): one rank's count
// before merging, every rank's after (sum, least and most a rank, the latest rank's time).
struct MdStonewall {
  bool ran = false;    // the step had a stonewall
  bool fired = false;  // some rank stopped at it (else every rank made every file before it)
  uint64_t items_sum = 0;
  uint64_t items_min = 0;
  uint64_t items_max = 0;
  uint64_t ns = 0;           // the step's start to the rank's stop at the stonewall (its last item's end)
  uint64_t wear_out_to = 0;  // the count every rank made after the wear-out: items_max across ranks

  void merge(const MdStonewall& other);
};

struct MdTally {
  uint64_t ops = 0;   // operations done (files, folders, or entries listed)
  uint64_t ns = 0;    // this rank's time for the step: its first operation's start to its last's end
  Histogram latency;  // per operation (a list: per folder)
  std::map<std::string, uint64_t> errors;  // "EEXIST" -> count; "other" for a failure with no errno
  std::string first_error;                 // the first failure's message (names the path)
  MdStonewall stonewall;                   // the create step with a stonewall only

  void merge(const MdTally& other);
  // Counts a failed operation by its errno and keeps the first message.
  void count_error(const Status& s);
  nlohmann::json to_wire() const;
  static bool from_json(const nlohmann::json& j, MdTally* out);
};

}  // namespace iofab
