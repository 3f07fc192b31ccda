#include "reports/bottleneck_hint.h"

#include <map>

#include "harness/core/number_text.h"

namespace iofab {
namespace {

constexpr double kBusy = 0.9;
constexpr double kIdleDevice = 0.6;
constexpr double kOneCore = 0.9;
constexpr double kLittleCpu = 0.5;
constexpr size_t kMinSamples = 3;

std::string pct(double f) { return number_text("%.0f%%", f * 100); }

std::string num(double v) { return number_text("%.2g", v); }

// One host's means over its full intervals.
struct HostMeans {
  size_t samples = 0;
  double busiest_core = 0, process_cores = 0;
  std::map<std::string, std::pair<double, double>> disks;  // util, in_flight
};

HostMeans means(const nlohmann::json& host) {
  HostMeans m;
  const nlohmann::json& samples = host.value("samples", nlohmann::json::array());
  const double interval = host.value("interval_s", 0.0);
  for (const nlohmann::json& s : samples) {
    // The last sample covers what was left of an interval when the phase ended: too short to judge.
    if (interval > 0 && s.value("seconds", 0.0) < interval / 2) continue;
    ++m.samples;
    m.busiest_core += s.value("busiest_core", 0.0);
    m.process_cores += s.value("process_cpu_cores", 0.0);
    for (const nlohmann::json& d : s.value("disks", nlohmann::json::array())) {
      auto& [util, queue] = m.disks[d.value("device", std::string("?"))];
      util += d.value("util", 0.0);
      queue += d.value("in_flight", 0.0);
    }
  }
  if (m.samples == 0) return m;
  const auto n = static_cast<double>(m.samples);
  m.busiest_core /= n;
  m.process_cores /= n;
  for (auto& [name, v] : m.disks) v = {v.first / n, v.second / n};
  return m;
}

}  // namespace

std::optional<nlohmann::json> bottleneck_hint(const nlohmann::json& telemetry) {
  if (!telemetry.is_object() || !telemetry.contains("hosts") || !telemetry["hosts"].is_array()) return std::nullopt;
  for (nlohmann::json host : telemetry["hosts"]) {
    if (!host.is_object()) continue;
    host["interval_s"] = telemetry.value("interval_s", 0.0);
    const HostMeans m = means(host);
    if (m.samples < kMinSamples) continue;
    const std::string name = host.value("host", std::string("unknown"));
    double busiest_disk = 0;
    std::string busiest_name;
    for (const auto& [dev, v] : m.disks) {
      if (busiest_name.empty() || v.first > busiest_disk) {
        busiest_disk = v.first;
        busiest_name = dev;
      }
    }
    if (!busiest_name.empty() && busiest_disk >= kBusy) {
      return nlohmann::json{{"kind", "device"},   {"host", name},
                            {"samples", m.samples}, {"device", busiest_name},
                            {"util", busiest_disk}, {"in_flight_mean", m.disks.at(busiest_name).second}};
    }
    if (m.busiest_core >= kBusy && m.process_cores >= kOneCore && busiest_disk < kIdleDevice) {
      nlohmann::json h = {{"kind", "cpu"},
                          {"host", name},
                          {"samples", m.samples},
                          {"busiest_core", m.busiest_core},
                          {"iofab_cpu_cores", m.process_cores}};
      if (!busiest_name.empty()) {
        h["device"] = busiest_name;
        h["util"] = busiest_disk;
      }
      return h;
    }
    if (m.busiest_core >= kBusy && m.process_cores < kLittleCpu) {
      return nlohmann::json{{"kind", "other_load"},
                            {"host", name},
                            {"samples", m.samples},
                            {"busiest_core", m.busiest_core},
                            {"iofab_cpu_cores", m.process_cores}};
    }
  }
  return std::nullopt;
}

std::string hint_text(const nlohmann::json& h) {
  const std::string kind = h.value("kind", std::string());
  const std::string where = " (host " + h.value("host", std::string("?")) + ", " +
                            std::to_string(h.value("samples", 0)) + " samples)";
  if (kind == "device") {
    return "device-bound: " + h.value("device", std::string("?")) + " busy " + pct(h.value("util", 0.0)) +
           " of the time, " + num(h.value("in_flight_mean", 0.0)) + " I/Os in flight on average" + where;
  }
  if (kind == "cpu") {
    std::string t = "CPU-bound: one core at " + pct(h.value("busiest_core", 0.0)) + ", iofab using " +
                    num(h.value("iofab_cpu_cores", 0.0)) + " cores";
    if (h.contains("device")) {
      t += ", while " + h["device"].get<std::string>() + " was " + pct(h.value("util", 0.0)) + " busy";
    }
    return t + where;
  }
  if (kind == "other_load") {
    return "other load on the host: one core at " + pct(h.value("busiest_core", 0.0)) + " while iofab used " +
           num(h.value("iofab_cpu_cores", 0.0)) + " cores; the figures share the host with it" + where;
  }
  return "";
}

}  // namespace iofab
