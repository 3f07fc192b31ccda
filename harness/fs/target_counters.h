// The counters that can prove a phase's bytes reached the target's storage:
// /proc/diskstats for its block devices, /proc/self/mountstats for NFS.
// Sampled before and after a phase; the difference is what the storage (or
// the NFS client) moved while the phase ran, whoever asked for it.
#pragma once

#include <cstdint>

#include "harness/fs/target.h"

namespace iofab {

struct TargetCounters {
  bool device_seen = false;  // every device of TargetInfo::devices was in /proc/diskstats
  uint64_t device_read_bytes = 0;
  uint64_t device_write_bytes = 0;
  bool client_seen = false;  // NFS counters for the target's mount
  uint64_t client_read_bytes = 0;
  uint64_t client_write_bytes = 0;
};

TargetCounters sample_target_counters(const TargetInfo& target);

// after - before, saturating at 0 (a counter reset); seen only where both samples saw.
TargetCounters operator-(const TargetCounters& after, const TargetCounters& before);

}  // namespace iofab
