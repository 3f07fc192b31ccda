// The target: the folder a run writes under. Checked before anything is
// written, and described in the report (filesystem, mount, device, space).
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "harness/core/status.h"

namespace iofab {

struct TargetInfo {
  std::string path;     // as resolved (absolute, symlinks resolved)
  std::string fs_type;  // from /proc/self/mountinfo, e.g. "ext4", "tmpfs"
  std::string mount_point;
  std::string mount_options;
  std::string device;        // mount source, e.g. "/dev/vda" (kept for old readers; = mount_source)
  std::string mount_source;  // mount source as mountinfo gives it: "/dev/vda", "host:/gv0", "tmpfs"
  std::string block_device;  // kernel name in /proc/diskstats, e.g. "vda"; empty if none
  // Every block device behind the target that /proc/diskstats counts: what proves bytes reached storage.
  // Empty for FUSE, network, parallel and memory filesystems.
  std::vector<std::string> devices;
  // How the target reaches its storage, which decides what can verify a figure:
  // "block" (a local block device), "fuse", "network" (NFS, SMB, Lustre, GPFS, ...), "memory" (tmpfs).
  std::string access;
  // An s3:// target: where its endpoint came from ("suite s3.endpoint", "AWS_ENDPOINT_URL", ...); ""
  // otherwise.
  std::string endpoint_source;
  uint64_t free_bytes = 0;  // available to this user
  uint64_t total_bytes = 0;
  bool read_only = false;
};

// Refuses (Invalid, exit 2) a block or character device, a regular file or
// anything but a folder, a read-only or unwritable folder, and a path whose
// parent does not exist. Creates the target folder itself when only it is
// missing. On success fills *info.
Status check_target(const std::string& path, TargetInfo* info);

// Fills *info for an existing folder (no checks); used again at report time.
Status describe_target(const std::string& path, TargetInfo* info);

nlohmann::json to_json(const TargetInfo& info);

// "block", "fuse", "network", "memory" or "other" for a mountinfo filesystem type (see TargetInfo::access).
std::string access_for_fs_type(const std::string& fs_type);

}  // namespace iofab
