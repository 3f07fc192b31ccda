// Phase `model_load`: inference cold start. Every replica (ranks x workers) loads the same model weights,
// safetensors files as Hugging Face ships them (model_files.h), from a cold page cache: opens each file,
// parses its header, reads every tensor and checks every byte. The headline is time-to-ready: each
// replica's, from the common start to its last tensor byte read and verified, and the slowest's, against
// `ready_budget` at full size. Engine `mmap` loads as safetensors' safe_open and torch.load(mmap=True) do
// (page faults); psync and io_uring as read()-based loaders do. Later phases read an earlier phase's files
// with `weights_from`, so engines compare on the very same files.
//
// The phase's parts, one file each in workloads/model_load/:
//   model_files   the files: tensors, split, headers, index (pure)
//   file_check    a loader's pass over one file's bytes: header, then every tensor verified
//   weights       writing the files (setup) and finding them (the index), dropping their pages
//   replica       one replica's timed load
//   results       every rank's figures to rank 0, the metrics, the budget
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "harness/phase/phase.h"

namespace iofab {

class ParamReader;

std::unique_ptr<Phase> parse_model_load(ParamReader& r);
const std::vector<MetricInfo>& model_load_metrics();
// What the phase verifies in the bytes it reads: not measured with engine null (PhaseKind::verify_metrics).
inline constexpr std::string_view kModelLoadVerifyMetrics[] = {"corrupt_files", "verified_bytes",
                                                               "verify_bytes_per_s"};

}  // namespace iofab
