#include "reports/concurrent_console.h"

#include <cstdio>
#include <string>

#include "reports/console_report.h"

namespace iofab {

using nlohmann::json;

namespace {

std::string ratio_text(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "x%.2f", r);
  return buf;
}

// "during burst 99.9%, during drain 99.6%, outside 100.0%" for one figure of details.windows.classes.
std::string split_text(const json& classes, const char* key, const std::string& unit) {
  std::string out;
  for (const char* cls : {"burst", "drain", "outside"}) {
    if (!classes.contains(cls) || !classes[cls].contains(key) || !classes[cls][key].is_number()) continue;
    out += (out.empty() ? "" : ", ") + std::string(cls == std::string("outside") ? "outside " : "during ") +
           (cls == std::string("outside") ? "" : std::string(cls) + " ") +
           format_metric_value(classes[cls][key].get<double>(), unit);
  }
  return out;
}

}  // namespace

void write_concurrent_lines(const PhaseReport& p, std::ostream& out) {
  if (!p.details.contains("concurrent") || !p.details["concurrent"].is_object()) return;
  const json& c = p.details["concurrent"];
  std::string others;
  for (const auto& n : c.value("phases", json::array())) {
    if (n.is_string() && n.get<std::string>() != p.name) others += (others.empty() ? "" : ", ") + n.get<std::string>();
  }
  out << "    ran beside: " << others;
  if (c.value("follows_clock", false) && c.contains("clock") && c["clock"].is_string()) {
    out << " (until " << c["clock"].get<std::string>() << ", the group's clock, ended";
    if (p.details.contains("follows_clock") && p.details["follows_clock"].contains("epochs")) {
      out << ": " << p.details["follows_clock"]["epochs"].dump() << " epochs";
    }
    out << ")";
  } else if (c.contains("clock") && c["clock"] == p.name) {
    out << " (this phase is the group's clock)";
  }
  out << "\n";
  if (p.details.contains("windows") && p.details["windows"].contains("classes")) {
    const json& classes = p.details["windows"]["classes"];
    const std::string au = split_text(classes, "au", "fraction");
    if (!au.empty()) out << "    au: " << au << "\n";
    const std::string lat = split_text(classes, "sample_latency_p99_s", "s");
    if (!lat.empty()) out << "    sample_latency_p99: " << lat << "\n";
  }
  const json& units = p.details.value("units", json::object());
  std::string alone;
  for (const auto& [name, v] : p.metrics.items()) {
    if (!name.ends_with("_solo") || name.ends_with("_vs_solo") || !v.is_number()) continue;
    const std::string base = name.substr(0, name.size() - 5);
    alone += (alone.empty() ? "" : ", ") + base + " " +
             format_metric_value(v.get<double>(), units.value(base, std::string("count")));
    const std::string vs = base + "_vs_solo";
    if (p.metrics.contains(vs) && p.metrics[vs].is_number()) {
      alone += " (together " + ratio_text(p.metrics[vs].get<double>()) + ")";
    }
  }
  if (!alone.empty()) out << "    alone: " << alone << "\n";
}

}  // namespace iofab
