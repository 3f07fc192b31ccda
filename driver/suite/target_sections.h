// The kinds of targets' own sections of a suite ("s3"): the suite keeps each as written and has it
// checked by its kind when the suite is read. The suite sits below the kinds of targets
// (cmake/LayerTable.cmake: suite < targets < runner < cli), so it names what it needs here and the table
// of target kinds (driver/targets/target_kinds.cc) fills it in from its rows.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace iofab {

struct TargetSection {
  std::string_view name;  // "s3": the suite's key
  // Each problem as "SECTION.KEY: ..." appended to errors.
  void (*check)(const nlohmann::json& j, std::vector<std::string>* errors) = nullptr;
};

// One row per kind of target that has a section, in the kinds' order.
const std::vector<TargetSection>& target_sections();

// Whether key is a kind of target's section of the suite ("s3").
bool is_target_section(std::string_view key);
// The kinds of targets' section names, each followed by suffix and ", " ("s3, " or, as --set paths,
// "s3.KEY, "), for messages.
std::string section_list(std::string_view suffix);

}  // namespace iofab
