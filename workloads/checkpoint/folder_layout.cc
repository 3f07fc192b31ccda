#include "workloads/checkpoint/folder_layout.h"

#include <cstdio>

namespace iofab {

std::string step_dir_name(uint64_t step) { return "step-" + std::to_string(step); }

std::string step_tmp_name(uint64_t step) { return step_dir_name(step) + ".tmp"; }

std::optional<uint64_t> parse_step_dir_name(std::string_view name) {
  constexpr std::string_view kPrefix = "step-";
  if (!name.starts_with(kPrefix) || name.size() == kPrefix.size() || name.size() > kPrefix.size() + 19) {
    return std::nullopt;
  }
  uint64_t n = 0;
  for (char c : name.substr(kPrefix.size())) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  return n;
}

std::string shard_file_name(uint64_t shard, uint64_t shards) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "shard-%05llu-of-%05llu.bin", static_cast<unsigned long long>(shard),
                static_cast<unsigned long long>(shards));
  return buf;
}

namespace {

bool is_safe_part(std::string_view part) {
  if (part.empty() || part.size() > 255 || part == "." || part == "..") return false;
  for (char c : part) {
    if (c == '/' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  }
  return true;
}

}  // namespace

bool is_safe_shard_name(std::string_view name) {
  if (name == kManifestName || name == kDcpMetadataName) return false;
  const size_t slash = name.find('/');
  if (slash == std::string_view::npos) return is_safe_part(name);
  return is_safe_part(name.substr(0, slash)) && is_safe_part(name.substr(slash + 1));
}

std::string_view layout_kind_name(CheckpointLayoutKind k) {
  switch (k) {
    case CheckpointLayoutKind::kShards:
      return "shards";
    case CheckpointLayoutKind::kDcp:
      return "dcp";
    case CheckpointLayoutKind::kMegatron:
      return "megatron";
  }
  return "shards";
}

std::string_view commit_file_name(CheckpointLayoutKind k) {
  return k == CheckpointLayoutKind::kDcp ? kDcpMetadataName : kManifestName;
}

}  // namespace iofab
