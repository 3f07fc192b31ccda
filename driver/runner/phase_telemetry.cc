#include "driver/runner/phase_telemetry.h"

#include <nlohmann/json.hpp>

#include "reports/bottleneck_hint.h"

namespace iofab {

void attach_telemetry(const std::vector<std::string>& per_rank, double interval_s,
                      std::vector<PhaseReport>* phases) {
  std::vector<nlohmann::json> parsed;
  for (const std::string& text : per_rank) parsed.push_back(nlohmann::json::parse(text, nullptr, false));
  for (size_t i = 0; i < phases->size(); ++i) {
    nlohmann::json hosts = nlohmann::json::array();
    for (const nlohmann::json& all : parsed) {
      if (all.is_array() && i < all.size() && all[i].is_object()) hosts.push_back(all[i]);
    }
    nlohmann::json t = {{"interval_s", interval_s}, {"hosts", hosts}};
    if (interval_s <= 0) t["off"] = "telemetry_interval: 0";
    // Judged where the samples are whole: a phase too short for 3 intervals gets no hint.
    if (const auto hint = bottleneck_hint(t)) (*phases)[i].details["bottleneck"] = *hint;
    (*phases)[i].details["telemetry"] = std::move(t);
  }
}

}  // namespace iofab
