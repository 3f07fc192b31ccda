// The details every storage phase (ingest, checkpoint, restore) reports the
// same way from its ranks' merged IoTally: the latency summary and histogram,
// the bandwidth series, each rank's figures and the engine that ran. One
// writer, so the reports' plots and `compare` find them under one set of keys.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "harness/phase/phase.h"
#include "harness/stats/io_tally.h"

namespace iofab {

// engine: the suite's name ("auto" is resolved to the engine that ran).
void put_io_details(const IoTally& total, const nlohmann::json& per_rank, std::string_view engine,
                    PhaseResult* result);

// Which latency percentiles a phase reports as metrics: p50, p99 and max, or also p90 and p999.
enum class LatencyMetrics { kShort, kFull };
// h's percentiles as metrics, in seconds: prefix + "p50_s", [prefix + "p90_s",] prefix + "p99_s",
// [prefix + "p999_s",] prefix + "max_s" ("latency_p99_s", "sample_latency_p99_s", "create_latency_p99_s").
void put_latency_metrics(const Histogram& h, const std::string& prefix, LatencyMetrics which,
                         std::map<std::string, double>* metrics);

}  // namespace iofab
