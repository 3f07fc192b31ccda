// The two-tier params of the checkpoint phase: `tier` ("single" | "two") and
// `local_dir`, the node-local folder the fast tier writes under. Read apart
// from the rest of parse_checkpoint so the tier's rules live in one place.
#pragma once

#include "workloads/checkpoint/params.h"

namespace iofab {

class ParamReader;

// Reads tier and local_dir into p; errors go to r, naming the field and the expected form. Reads
// `mode` as the rest of the parser set it (p->async), so it runs after mode was read.
void read_tier_params(ParamReader& r, CheckpointParams* p);

}  // namespace iofab
