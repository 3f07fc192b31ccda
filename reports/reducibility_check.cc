#include "reports/reducibility_check.h"

#include <cstdio>
#include <set>

namespace iofab {

using nlohmann::json;

namespace {

// key's number in obj, or 0.
double number_in(const json& obj, const char* key) {
  if (!obj.is_object()) return 0;
  auto it = obj.find(key);
  return it != obj.end() && it->is_number() ? it->get<double>() : 0;
}

// 0.5 as "0.5", 0 as "0" (JSON would write "0.0").
std::string fraction_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

std::string reducibility_text(const PhaseReport& phase) {
  const auto it = phase.details.find("data_reducibility");
  const json& from = it != phase.details.end() && it->is_object() ? *it : phase.params;
  const double c = number_in(from, "compressibility");
  const double d = number_in(from, "dedup");
  if (c == 0 && d == 0) return "none";
  return "compressibility " + fraction_text(c) + ", dedup " + fraction_text(d);
}

std::vector<std::string> reducibility_mismatches(const std::vector<const Report*>& reports,
                                                 const std::vector<std::string>& labels) {
  std::vector<std::string> names;  // in first-seen order
  std::set<std::string> seen;
  for (const Report* r : reports) {
    for (const auto& p : r->phases) {
      if (seen.insert(p.name).second) names.push_back(p.name);
    }
  }
  std::vector<std::string> out;
  for (const auto& name : names) {
    std::set<std::string> texts;
    std::string each;
    for (size_t i = 0; i < reports.size(); ++i) {
      for (const auto& p : reports[i]->phases) {
        if (p.name != name) continue;
        const std::string t = reducibility_text(p);
        texts.insert(t);
        each += (each.empty() ? "" : "; ") +
                (i < labels.size() ? labels[i] : "report " + std::to_string(i + 1)) + ": " + t;
      }
    }
    if (texts.size() > 1) {
      out.push_back("phase " + name + ": the written data's reducibility differs (" + each +
                    "); storage that compresses or dedups inline looks faster on the more reducible data, "
                    "so these figures do not compare");
    }
  }
  return out;
}

}  // namespace iofab
