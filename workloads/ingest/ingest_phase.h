// Phase `ingest`: landing raw data. Each worker writes its own files
// sequentially, fsyncs them at the end inside the timed region.
#pragma once

#include <memory>
#include <vector>

#include "harness/phase/phase.h"

namespace iofab {

class ParamReader;

std::unique_ptr<Phase> parse_ingest(ParamReader& r);
const std::vector<MetricInfo>& ingest_metrics();

}  // namespace iofab
