// Whether reports set side by side (`iofab report`) or against a baseline (`iofab compare`) wrote data
// of the same reducibility. Storage that compresses or dedups inline (ZFS, VAST) writes reducible data
// faster and stores less of it, so figures from runs with different `compressibility` or `dedup` do not
// compare: the page and the comparison say so, per phase.
#pragma once

#include <string>
#include <vector>

#include "harness/results/report.h"

namespace iofab {

// The data a phase wrote, as a person reads it: "compressibility 0.5, dedup 0.3", or "none" (the
// default: incompressible, no dedup). From details.data_reducibility, else params, else none (reports
// from before the options, and phases that write nothing).
std::string reducibility_text(const PhaseReport& phase);

// One line per phase name whose reports (labels[i] names reports[i]) wrote data of different
// reducibility: "phase ingest: the data's reducibility differs (a: compressibility 0.5, dedup 0; b: none)".
std::vector<std::string> reducibility_mismatches(const std::vector<const Report*>& reports,
                                                 const std::vector<std::string>& labels);

}  // namespace iofab
