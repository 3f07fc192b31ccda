// libFuzzer target: a checkpoint manifest comes from a folder anyone may
// have written to (restore's `from`): parse_manifest must answer any bytes
// with a Status, and what it accepts must be self-consistent.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include "workloads/checkpoint/manifest.h"

// A name restore will open under the step folder: one file, or one folder
// level (megatron's mp_rank_TT/), never absolute and never "." or "..".
static bool stays_in_step_folder(std::string_view name) {
  if (name.empty() || name.front() == '/' || name.back() == '/') return false;
  const size_t slash = name.find('/');
  if (slash != std::string_view::npos && name.find('/', slash + 1) != std::string_view::npos) return false;
  for (std::string_view part : {name.substr(0, slash), slash == std::string_view::npos ? std::string_view() : name.substr(slash + 1)}) {
    if (part == "." || part == "..") return false;
  }
  return true;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  iofab::Manifest m;
  if (!iofab::parse_manifest(text, &m).ok()) return 0;
  if (m.shards.empty()) __builtin_trap();
  std::set<std::string> names;
  for (const auto& s : m.shards) {
    if (!names.insert(s.name).second || !stays_in_step_folder(s.name)) __builtin_trap();
  }
  // What iofab writes for it parses back to the same shards.
  iofab::Manifest again;
  if (!iofab::parse_manifest(iofab::manifest_to_json_text(m), &again).ok()) __builtin_trap();
  if (again.shards.size() != m.shards.size() || again.total_bytes() != m.total_bytes()) __builtin_trap();
  return 0;
}
