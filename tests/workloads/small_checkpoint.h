// The checkpoint phase's params for a small checkpoint that runs in milliseconds on tmpfs, with extra
// params over them.
#pragma once

#include <nlohmann/json.hpp>

namespace iofab::testing {

inline nlohmann::json small_checkpoint(nlohmann::json extra = nlohmann::json::object()) {
  nlohmann::json p = {{"checkpoint_size", "8MiB"}, {"count", 1},       {"gap", 0},         {"workers", 2},
                      {"block_size", "256KiB"},    {"queue_depth", 4}, {"engine", "psync"}};
  for (auto& [k, v] : extra.items()) p[k] = v;
  return p;
}

}  // namespace iofab::testing
