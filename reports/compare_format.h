// Output forms of a Comparison: an aligned text table for the terminal, JSON
// for machines (`compare --out x.json`) and Markdown (`--out x.md`, e.g. a
// CI job summary). JUnit is junit_report.h.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "reports/compare.h"

namespace iofab {

void write_comparison_text(const Comparison& cmp, std::ostream& out);
nlohmann::json comparison_to_json(const Comparison& cmp);
std::string comparison_to_markdown(const Comparison& cmp);

}  // namespace iofab
