// The comparison page's plots, drawn from the reports alone: which figures
// and details each plot takes, per system, rendered with svg_plot. A plot
// whose data no report holds is left out with a note saying what was
// looked for; a malformed detail costs its plot, never the page.
#pragma once

#include <string>
#include <vector>

#include "reports/side_by_side.h"

namespace iofab {

struct PlotSection {
  std::string id;  // anchor
  std::string heading;
  std::string explanation;         // what the plot shows, one or two sentences
  std::vector<std::string> svgs;   // one <svg> element per chart
  std::vector<std::string> notes;  // data left out, and why
};

// In order: bandwidth per phase, train_read latency CDFs, checkpoint stall
// vs allowed stall, restore time, bandwidth over time, host activity over
// time (telemetry), busbw vs message size per op, DDP vs FSDP step breakdown.
std::vector<PlotSection> build_plots(const std::vector<SystemReport>& systems);

}  // namespace iofab
