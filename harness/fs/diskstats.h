// /proc/diskstats for the target's block device: bytes the device really
// read and wrote, to put beside the bytes the application asked for.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace iofab {

struct DiskCounters {
  uint64_t read_bytes = 0;
  uint64_t write_bytes = 0;
  uint64_t reads = 0;
  uint64_t writes = 0;
};

// Counters for a kernel device name ("vda", "nvme0n1p2"); nullopt when the
// device is not listed (tmpfs, network filesystems) or the file is unreadable.
std::optional<DiskCounters> read_disk_counters(const std::string& device);

// For a partition, its whole disk also counts the I/O; either is accepted.
// Difference after - before, saturating at 0 on a counter reset.
DiskCounters operator-(const DiskCounters& after, const DiskCounters& before);

}  // namespace iofab
