#include "workloads/checkpoint/folder_layout.h"

#include <cstdio>

namespace iofab {

std::string step_dir_name(uint64_t step) { return "step-" + std::to_string(step); }

std::string step_tmp_name(uint64_t step) { return step_dir_name(step) + ".tmp"; }

std::string megatron_iter_name(uint64_t step) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "iter_%07llu", static_cast<unsigned long long>(step));
  return buf;
}

namespace {

// The digits after prefix in name, when name is prefix and at least min_digits (at most 19) digits.
std::optional<uint64_t> number_after(std::string_view name, std::string_view prefix, size_t min_digits) {
  if (!name.starts_with(prefix)) return std::nullopt;
  const std::string_view digits = name.substr(prefix.size());
  if (digits.size() < min_digits || digits.size() > 19) return std::nullopt;
  uint64_t n = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  return n;
}

}  // namespace

std::optional<uint64_t> parse_step_dir_name(std::string_view name) {
  if (auto n = number_after(name, "step-", 1)) return n;
  return number_after(name, "iter_", 7);
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
  if (name == kCheckpointManifestName || name == kDcpMetadataName) return false;
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
    case CheckpointLayoutKind::kTorchSave:
      return "torch_save";
  }
  return "shards";
}

std::string_view commit_file_name(CheckpointLayoutKind k) {
  return k == CheckpointLayoutKind::kDcp ? kDcpMetadataName : kCheckpointManifestName;
}

}  // namespace iofab
