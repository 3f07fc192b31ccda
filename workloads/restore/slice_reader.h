// A restore reader's tensor slices (slice_plan.h), read and verified: one
// file at a time, its slices in offset order through an IoPump, each block
// compared on completion with the bytes its tensor must hold there
// (tensor_content.h), so a slice no writer wrote alone is still checked to
// the byte. With O_DIRECT a block is widened to 4 KiB bounds and only the
// slice's part of it is checked.
//
// Thread-safety: one reader per worker thread.
#pragma once

#include <cstdint>

#include "harness/core/status.h"
#include "harness/phase/phase.h"
#include "workloads/checkpoint/manifest.h"
#include "workloads/restore/checkpoint_source.h"
#include "workloads/restore/params.h"
#include "workloads/restore/reader.h"

namespace iofab {

// Timed from t0: reads rd->slices. Returns an error only when reading cannot go on; a slice that
// fails names its file and tensor in rd->bad.
Status read_slices(const RestoreParams& p, const PhaseContext& ctx, const StepFolder& step, const Manifest& m,
                   uint64_t t0, Reader* rd);

}  // namespace iofab
