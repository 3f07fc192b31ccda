// /proc/self/mountstats: what an NFS client says it sent to and got from
// the server. Where a target has no block device to count, these are the
// only bytes that prove a read crossed the wire rather than the client cache.
#pragma once

#include <map>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace iofab {

struct ClientCounters {
  uint64_t server_read_bytes = 0;   // bytes the client READ from the server
  uint64_t server_write_bytes = 0;  // bytes the client WROTE to the server
};

// The counters of the NFS mount at mount_point in text (mountstats format: a "device ... mounted on
// <point> with fstype nfs..." line, then a tab-indented "bytes:" line); nullopt when that mount is
// absent, not NFS, or has no bytes line.
std::optional<ClientCounters> parse_client_counters(std::string_view text, const std::string& mount_point);

// The same from /proc/self/mountstats; nullopt when unreadable.
std::optional<ClientCounters> read_client_counters(const std::string& mount_point);

// The NFS client's per-operation counts of one mount ("LOOKUP" -> operations sent), from mountstats'
// "per-op statistics" section: what the client asked the server, which a metadata figure is held against
// (a stat the client's cache answered sends no GETATTR).
using NfsOpCounts = std::map<std::string, uint64_t>;

// Those counts of the NFS mount at mount_point in text; nullopt when that mount is absent, not NFS, or has
// no per-op section.
std::optional<NfsOpCounts> parse_nfs_op_counts(std::string_view text, const std::string& mount_point);

// The same from /proc/self/mountstats; nullopt when unreadable or not NFS.
std::optional<NfsOpCounts> read_nfs_op_counts(const std::string& mount_point);

}  // namespace iofab
