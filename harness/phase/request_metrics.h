// The figures of a phase that ran on an object store, beside its file
// figures: requests per second, time to first byte and whole-request latency
// percentiles, retries, and errors by status code (details). Present only
// where the store sent requests (Store::take_request_stats).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/stats/request_stats.h"
#include "harness/phase/phase.h"
#include "harness/store/store.h"

namespace iofab {

// The rows to append to a storage phase's metric table.
const std::vector<MetricInfo>& request_metric_infos();
// True for one of those rows' names: a figure only a phase on an object store (an s3:// target) has.
bool is_request_metric(std::string_view name);

// This rank's figures since the last call, as wire JSON (null for a store that sends no requests).
nlohmann::json take_request_stats_json(Store& store);
// Merges the ranks' wire JSON (nulls skipped); false when none had figures.
bool merge_request_stats(const std::vector<nlohmann::json>& ranks, RequestStats* out);
// Adds the metrics (requests / seconds for the rate) and details["requests"] (by status code).
void put_request_metrics(const RequestStats& s, double seconds, PhaseResult* result);

}  // namespace iofab
