// Phase `prepare`: the data-preparation pass between landing raw data and
// training on it. A raw dataset of many small files (sizes drawn as
// train_read's) is generated (timed on its own), its cached pages dropped;
// then every rank prepares its share of the files through a pipeline of
// readers, transformers (zstd at `level`, or a busy loop of `cpu_per_mib`)
// and writers of WebDataset-style tar shards, joined by bounded queues
// (prepare_pipeline.h). Reports input samples/s and bytes/s, output bytes/s,
// CPU seconds per GB, each stage's busy fraction, and the stage that bounds
// the pass: storage read, CPU or storage write (prepare_bound.h). See
// docs/phases/prepare.md.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "harness/phase/phase.h"

namespace iofab {

class ParamReader;

std::unique_ptr<Phase> parse_prepare(ParamReader& r);
const std::vector<MetricInfo>& prepare_metrics();
// What the phase verifies in the bytes it reads: not measured with engine null (PhaseKind::verify_metrics).
inline constexpr std::string_view kPrepareVerifyMetrics[] = {"corrupt_samples"};

}  // namespace iofab
