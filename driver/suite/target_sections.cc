#include "driver/suite/target_sections.h"

namespace iofab {

bool is_target_section(std::string_view key) {
  for (const auto& k : target_sections()) {
    if (k.name == key) return true;
  }
  return false;
}

std::string section_list(std::string_view suffix) {
  std::string out;
  for (const auto& k : target_sections()) out += std::string(k.name) + std::string(suffix) + ", ";
  return out;
}

}  // namespace iofab
