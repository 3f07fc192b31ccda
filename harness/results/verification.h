// A phase's verification level: whether its figure is proved to be the
// storage's, from counters outside the phase (the block devices behind the
// target, or the NFS client). A figure the counters cannot back is marked
// unverified, never shown as storage speed.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace iofab {

// "storage": the target's block devices moved at least kVerifiedFraction of the phase's bytes.
// "client": no block device, but the NFS client sent or fetched them over the wire (mountstats).
// "unverified": nothing outside the phase backs the figure (FUSE, a parallel filesystem, tmpfs, or a
// device that moved too few bytes: the page cache served the rest).
inline constexpr const char* kLevelStorage = "storage";
inline constexpr const char* kLevelClient = "client";
inline constexpr const char* kLevelUnverified = "unverified";
inline constexpr double kVerifiedFraction = 0.9;

struct Verification {
  std::string level;
  std::string direction;                // "read" or "write"
  double phase_bytes = 0;               // what the phase says it moved through the target
  std::optional<double> counted_bytes;  // what the devices (or the NFS client) moved meanwhile
  std::string source;                   // "/proc/diskstats: loop3", "/proc/self/mountstats", ""
  std::string note;                     // the sentence every reporter prints
};

// What was counted during a phase, summed over the hosts of the run.
struct CountedBytes {
  bool device_seen = false;
  double device_read = 0, device_write = 0;
  bool client_seen = false;
  double client_read = 0, client_write = 0;
};

struct TargetKind {
  std::string fs_type;  // "ext4", "fuse.glusterfs", "nfs4"
  std::string access;   // "block", "fuse", "network", "memory", "other" (TargetInfo::access)
  std::string devices;  // "loop3" or "sda, sdb"; empty when none
};

// The level for a phase that moved phase_bytes in direction ("read" or "write").
Verification judge_verification(const std::string& direction, double phase_bytes, const CountedBytes& counted,
                                const TargetKind& target);

nlohmann::json to_json(const Verification& v);

}  // namespace iofab
