// From what calibrate measured at several sample sizes to the loader section's costs: per sample and
// per byte by least squares over the sizes, per batch and per batch byte likewise over the batches'
// bytes, the main loop's per batch as the mean over sizes.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "harness/core/status.h"
#include "workloads/calibration/loader_costs.h"

namespace iofab {

// worker_start_s: measured once, not per size.
LoaderCosts fit_loader_costs(const std::vector<LoaderPoint>& points, double worker_start_s);

// The probe's output ({"points": [{"size", "batch_bytes", "getitem_s", "collate_s", "main_batch_s"}],
// "worker_start_s"}) as points; errors name the field.
Status python_loader_points(const nlohmann::json& probe, std::vector<LoaderPoint>* points,
                            double* worker_start_s);

}  // namespace iofab
