// Turns what every rank measured into the phase's public metrics (names in
// DESIGN.md) and details, on rank 0. Metric values are base units: bytes,
// bytes/s, seconds, fractions, counts.
//   sweep: busbw.<op>.<size>, algbw.<op>.<size> (out of place, or the op's one placement),
//          busbw.<op>.in_place.<size>, algbw.<op>.in_place.<size>, busbw.<op>.max, algbw.<op>.max,
//          busbw.<op>.avg (the mean over every run, both placements: nccl-tests' "Avg bus bandwidth"),
//          wrong_elements (when checked), rank_skew_max
//   steps: <mode>.step_seconds, .comm_seconds, .compute_seconds, .exposed_comm_seconds,
//          .bytes_per_rank (what the step issued), .bytes_per_rank_analytic (the formula),
//          .collectives, exposed_comm_fraction.<mode>
//   both modes: fsdp_ddp_bytes_ratio, fsdp_ddp_step_ratio, fsdp_ddp_comm_ratio
#pragma once

#include <string_view>
#include <vector>

#include "harness/phase/phase.h"
#include "workloads/collectives/step_schedule.h"
#include "workloads/collectives/sweep.h"

namespace iofab {

// False when the ranks' samples disagree (a bug, not a measurement).
bool add_sweep_results(const std::vector<std::vector<SizeSample>>& per_rank, const SweepSpec& spec,
                       PhaseResult* result);

// mode: "ddp" or "fsdp"; analytic: the DESIGN.md formula's bytes per rank.
void add_step_results(std::string_view mode, const StepSchedule& schedule, double analytic, int ranks,
                      const std::vector<std::vector<StepTiming>>& per_rank, PhaseResult* result);

// FSDP over DDP, once both modes' metrics are in.
void add_ratios(PhaseResult* result);

}  // namespace iofab
