#include "driver/runner/phase_verification.h"

#include <unistd.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "harness/core/json_text.h"

namespace iofab {

using nlohmann::json;

std::string counters_text(const std::vector<TargetCounters>& per_phase) {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  json phases = json::array();
  for (const auto& c : per_phase) {
    phases.push_back({c.device_seen, c.device_read_bytes, c.device_write_bytes, c.client_seen,
                      c.client_read_bytes, c.client_write_bytes});
  }
  return json_text(json{{"host", host}, {"phases", phases}});
}

CountedBytes counted_for_phase(const std::vector<std::string>& texts, size_t i) {
  CountedBytes sum;
  sum.device_seen = sum.client_seen = true;
  std::vector<std::string> hosts;
  bool any = false;
  for (const auto& t : texts) {
    json j = json::parse(t, nullptr, false);
    if (!j.is_object() || !j.contains("host") || !j["host"].is_string() || !j.contains("phases") ||
        !j["phases"].is_array() || i >= j["phases"].size()) {
      continue;
    }
    const std::string host = j["host"].get<std::string>();
    if (std::find(hosts.begin(), hosts.end(), host) != hosts.end()) continue;
    const json& c = j["phases"][i];
    if (!c.is_array() || c.size() != 6 || !c[0].is_boolean() || !c[3].is_boolean() || !c[1].is_number() ||
        !c[2].is_number() || !c[4].is_number() || !c[5].is_number()) {
      continue;
    }
    hosts.push_back(host);
    any = true;
    sum.device_seen = sum.device_seen && c[0].get<bool>();
    sum.device_read += c[1].get<double>();
    sum.device_write += c[2].get<double>();
    sum.client_seen = sum.client_seen && c[3].get<bool>();
    sum.client_read += c[4].get<double>();
    sum.client_write += c[5].get<double>();
  }
  if (!any) sum.device_seen = sum.client_seen = false;
  return sum;
}

void verify_phases(const Suite& suite, const TargetInfo& target, const std::vector<std::string>& counters,
                   std::vector<PhaseReport>* phases) {
  std::string devices;
  for (const auto& d : target.devices) devices += (devices.empty() ? "" : ", ") + d;
  const TargetKind kind{target.fs_type, target.access, devices};
  for (size_t i = 0; i < phases->size() && i < suite.phases.size(); ++i) {
    PhaseReport& pr = (*phases)[i];
    const PhaseKind& k = *suite.phases[i].kind;
    if (pr.status != PhaseStatus::kPassed && pr.status != PhaseStatus::kFailed) continue;
    const bool reads = !k.target_read_bytes.empty();
    const std::string metric(reads ? k.target_read_bytes : k.target_write_bytes);
    if (metric.empty() || !pr.metrics.contains(metric) || !pr.metrics[metric].is_number()) continue;
    Verification v = judge_verification(reads ? "read" : "write", pr.metrics[metric].get<double>(),
                                        counted_for_phase(counters, i), kind);
    // Beside a phase of its group that moves bytes the same way, the counters hold both phases' bytes.
    for (size_t j = 0; suite.phases[i].group >= 0 && j < suite.phases.size(); ++j) {
      const PhaseKind& other = *suite.phases[j].kind;
      if (j == i || suite.phases[j].group != suite.phases[i].group) continue;
      if ((reads ? other.target_read_bytes : other.target_write_bytes).empty()) continue;
      v.level = kLevelUnverified;
      v.counted_bytes.reset();
      v.note = "unverified: it ran beside " + suite.phases[j].name + ", which also " +
               (reads ? "read" : "wrote") + " through the target, and the device counters hold both";
      break;
    }
    // Read from a folder of the user's (dataset_dir, from) on another mount: the target's counters
    // do not cover it.
    for (const char* key : {"dataset_dir", "from"}) {
      auto it = pr.params.find(key);
      if (!reads || it == pr.params.end() || !it->is_string() || it->get<std::string>().empty()) continue;
      TargetInfo there;
      if (describe_target(it->get<std::string>(), &there).ok() && there.mount_point == target.mount_point) {
        continue;
      }
      v.level = kLevelUnverified;
      v.counted_bytes.reset();
      v.note = std::string("unverified: read from ") + key + " " + it->get<std::string>() +
               ", not on the target's mount whose counters were read";
    }
    pr.verification = std::move(v);
  }
}

}  // namespace iofab
