// The metadata phase's params, read and checked from the suite.
#pragma once

#include "harness/phase/params.h"
#include "workloads/metadata/metadata_plan.h"

namespace iofab {

// Reads every param of a metadata phase; errors go to r.
MetadataParams read_metadata_params(ParamReader& r);

// On an object store: at least one step it can do (create, stat, read, list, remove) and no fsync; the
// message starts with the param's name (Phase::check_on_object_store).
Status check_metadata_on_object_store(const MetadataParams& p);

}  // namespace iofab
