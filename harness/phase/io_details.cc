#include "harness/phase/io_details.h"

#include <string>

#include "harness/engines/cufile_engine.h"
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
  // cuFile's mode (GDS or its compatibility path) changes what the figures mean.
  if (ran == "cufile") d["engine_mode"] = cufile_mode_text();
}

}  // namespace iofab
