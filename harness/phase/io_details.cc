#include "harness/phase/io_details.h"

#include <string>

#include "harness/engines/engine_choice.h"

namespace iofab {

void put_io_details(const IoTally& total, const nlohmann::json& per_rank, std::string_view engine,
                    PhaseResult* result) {
  nlohmann::json& d = result->details;
  d["latency"] = latency_summary_json(total.latency);
  d["latency_histogram"] = total.latency.to_json();
  d["series"] = total.series.to_json();
  d["per_rank"] = per_rank;
  const std::string ran = resolve_engine_name(engine);
  d["engine"] = ran;
  // An engine's mode (cuFile: GDS or its compatibility path) changes what the figures mean.
  if (const auto mode = engine_mode_text(ran)) d["engine_mode"] = *mode;
}

void put_latency_metrics(const Histogram& h, const std::string& prefix, LatencyMetrics which,
                         std::map<std::string, double>* metrics) {
  const bool full = which == LatencyMetrics::kFull;
  auto& m = *metrics;
  m[prefix + "p50_s"] = static_cast<double>(h.percentile(0.50)) * 1e-9;
  if (full) m[prefix + "p90_s"] = static_cast<double>(h.percentile(0.90)) * 1e-9;
  m[prefix + "p99_s"] = static_cast<double>(h.percentile(0.99)) * 1e-9;
  if (full) m[prefix + "p999_s"] = static_cast<double>(h.percentile(0.999)) * 1e-9;
  m[prefix + "max_s"] = static_cast<double>(h.max()) * 1e-9;
}

}  // namespace iofab
