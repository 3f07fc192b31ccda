#include "harness/results/verification.h"

#include <cmath>
#include <cstdio>

namespace iofab {
namespace {

std::string percent(double part, double whole) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", whole > 0 ? 100.0 * part / whole : 0.0);
  return buf;
}

}  // namespace

Verification judge_verification(const std::string& direction, double phase_bytes, const CountedBytes& counted,
                                const TargetKind& target) {
  Verification v;
  v.direction = direction;
  v.phase_bytes = phase_bytes;
  v.level = kLevelUnverified;
  const bool reading = direction == "read";
  const std::string verb = reading ? "read" : "wrote";
  const std::string fs = target.fs_type.empty() ? std::string("this filesystem") : target.fs_type;
  if (counted.device_seen) {
    const double moved = reading ? counted.device_read : counted.device_write;
    v.counted_bytes = moved;
    v.source = "/proc/diskstats: " + target.devices;
    if (phase_bytes > 0 && moved >= kVerifiedFraction * phase_bytes) {
      v.level = kLevelStorage;
      v.note = "verified: " + target.devices + " " + verb + " " + percent(moved, phase_bytes) +
               " of the phase's bytes (/proc/diskstats)";
    } else {
      v.note = "unverified: page cache not excluded (" + target.devices + " " + verb + " only " +
               percent(moved, phase_bytes) + " of the phase's bytes; memory served or held the rest)";
    }
    return v;
  }
  if (counted.client_seen) {
    const double moved = reading ? counted.client_read : counted.client_write;
    v.counted_bytes = moved;
    v.source = "/proc/self/mountstats";
    if (phase_bytes > 0 && moved >= kVerifiedFraction * phase_bytes) {
      v.level = kLevelClient;
      v.note = "client-verified: the " + fs + " client " + (reading ? "fetched " : "sent ") +
               percent(moved, phase_bytes) +
               " of the phase's bytes over the wire (mountstats); the server's "
               "cache is not excluded";
    } else {
      v.note = "unverified: client cache not excluded (the " + fs + " client moved only " +
               percent(moved, phase_bytes) + " of the phase's bytes over the wire)";
    }
    return v;
  }
  if (target.access == "memory") {
    v.note = "unverified: " + fs + " is memory; there is no storage behind it";
  } else if (target.access == "fuse") {
    v.note = "unverified: client cache not excluded (" + fs +
             " is a FUSE mount: no block device to count, and its client daemon may cache)";
  } else if (target.access == "object") {
    v.note = "unverified: an object store over HTTP has no device counters here; the client's own count of "
             "body bytes sent and received is in details.requests";
  } else if (target.access == "network") {
    v.note = "unverified: client cache not excluded (" + fs + " exposes no per-mount byte counters here)";
  } else {
    v.note = "unverified: client cache not excluded (" + fs + " has no block device in /proc/diskstats)";
  }
  return v;
}

nlohmann::json to_json(const Verification& v) {
  return {{"level", v.level},
          {"direction", v.direction},
          {"phase_bytes", v.phase_bytes},
          {"counted_bytes", v.counted_bytes ? nlohmann::json(*v.counted_bytes) : nlohmann::json(nullptr)},
          {"source", v.source},
          {"note", v.note}};
}

}  // namespace iofab
