// The Markdown version of the comparison page (`iofab report --format md`):
// the same tables (checks with the checkpoint budget first, systems, each
// phase's metrics and parameters), no plots. Every cell is escaped, so no
// markup or HTML from a report gets through.
#pragma once

#include <string>
#include <vector>

#include "reports/side_by_side.h"

namespace iofab {

std::string render_markdown_report(const std::vector<SystemReport>& systems);

}  // namespace iofab
