// The metadata phase's params, read and checked from the suite.
#pragma once

#include "harness/phase/params.h"
#include "workloads/metadata/metadata_plan.h"

namespace iofab {

// Reads every param of a metadata phase; errors go to r.
MetadataParams read_metadata_params(ParamReader& r);

}  // namespace iofab
