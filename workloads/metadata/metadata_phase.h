// Phase `metadata`: file create, stat, open, read, list, rename and remove
// rates (and folder make and remove), in a folder per rank or one folder
// shared by every rank, as mdtest and IO500's mdtest-easy and mdtest-hard
// measure them (docs/phases/metadata.md).
#pragma once

#include <memory>
#include <vector>

#include "harness/phase/phase.h"

namespace iofab {

class ParamReader;

std::unique_ptr<Phase> parse_metadata(ParamReader& r);
const std::vector<MetricInfo>& metadata_metrics();

}  // namespace iofab
