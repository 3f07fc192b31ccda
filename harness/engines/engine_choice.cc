#include "harness/engines/engine_choice.h"

#include "harness/engines/engine.h"

namespace iofab {

std::string resolve_engine_name(std::string_view name) {
  if (name != "auto") return std::string(name);
  for (const auto& e : list_engines()) {
    if (e.name == "io_uring" && e.usable) return e.name;
  }
  return "psync";
}

}  // namespace iofab
