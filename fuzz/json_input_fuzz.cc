// libFuzzer target: parse_json_input, which every JSON from outside goes
// through, must answer any input with a Status; what it accepts is never
// deeper than the limit (so copying and printing it cannot overflow the
// stack) and prints as valid JSON.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "harness/core/json_input.h"
#include "harness/core/json_text.h"

namespace {

// Iterative, so the check itself cannot overflow on what it checks.
int depth_of(const nlohmann::json& root) {
  int deepest = 0;
  std::vector<std::pair<const nlohmann::json*, int>> pending = {{&root, 0}};
  while (!pending.empty()) {
    auto [j, d] = pending.back();
    pending.pop_back();
    if (!j->is_structured()) continue;
    deepest = std::max(deepest, d + 1);
    for (const auto& c : *j) pending.emplace_back(&c, d + 1);
  }
  return deepest;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  iofab::JsonInputOptions options;
  options.allow_comments = size > 0 && (data[0] & 1) != 0;
  options.max_depth = 8;  // small, so the fuzzer reaches the limit often
  nlohmann::json doc;
  iofab::JsonInputError kind = iofab::JsonInputError::kNone;
  const iofab::Status s = iofab::parse_json_input(text, options, &doc, &kind);
  if (s.ok() != (kind == iofab::JsonInputError::kNone)) __builtin_trap();
  if (!s.ok()) return 0;
  if (depth_of(doc) > options.max_depth) __builtin_trap();
  nlohmann::json again;
  // What was accepted prints back as JSON that is accepted again, unchanged.
  if (!iofab::parse_json_input(iofab::json_text(doc), options, &again).ok() || again != doc) __builtin_trap();
  return 0;
}
