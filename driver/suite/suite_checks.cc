#include "driver/suite/suite_checks.h"

#include <cmath>
#include <set>
#include <string_view>
#include <utility>

#include "harness/engines/engine_choice.h"
#include "harness/phase/params.h"

namespace iofab {

using nlohmann::json;

namespace {

const std::set<std::string, std::less<>> kCheckKeys = {"metric", "op", "value", "name"};

// A check on a figure the phase's engine does not measure (corrupt_shards with engine null, which reads
// no bytes) could only pass on a 0 nobody measured: refused, naming the check and why.
bool measured_with_engine(const PhaseKind& kind, const std::string& metric, const json& params,
                          const std::string& at, std::vector<std::string>* errors) {
  const auto engine = params.find("engine");
  if (engine == params.end() || !engine->is_string()) return true;
  const std::string name = engine->get<std::string>();
  if (engine_moves_data(name) || !is_verify_metric(kind, metric)) return true;
  errors->push_back(at + ": " + metric + " is not measured with engine " + name + ": it moves no bytes, so " +
                    std::string(kind.name) +
                    " verifies nothing and the check could pass on a figure never measured; check a figure "
                    "it measures, or use an engine that reads the data (engine \"auto\")");
  return false;
}

// The check's metric, known to kind and measured with the phase's engine; nullptr after an error.
const MetricInfo* check_metric(const json& c, const std::string& cp, const PhaseKind& kind,
                               const json& params, CheckSpec* spec, std::vector<std::string>* errors) {
  if (!c.contains("metric") || !c["metric"].is_string()) {
    errors->push_back(cp + ".metric: expected a metric name of phase kind " + std::string(kind.name));
    return nullptr;
  }
  spec->metric = c["metric"].get<std::string>();
  const MetricInfo* info = find_metric(kind, spec->metric);
  if (info == nullptr) {
    std::string names;
    for (const auto& m : kind.metrics()) names += (names.empty() ? "" : ", ") + m.name;
    errors->push_back(cp + ".metric: unknown metric \"" + spec->metric + "\" for phase kind " +
                      std::string(kind.name) + "; expected one of: " + names);
    return nullptr;
  }
  return measured_with_engine(kind, spec->metric, params, cp + ".metric", errors) ? info : nullptr;
}

// The check's op, ">=" for a metric where higher is better (or neither) and "<=" where lower is, by default.
bool check_op(const json& c, const std::string& cp, const MetricInfo& info, std::string* text, CheckOp* op,
              std::vector<std::string>* errors) {
  *text = c.contains("op") && c["op"].is_string() ? c["op"].get<std::string>() : "";
  if (!c.contains("op")) *text = info.better == Better::kLower ? "<=" : ">=";
  static constexpr std::pair<std::string_view, CheckOp> kOps[] = {{">=", CheckOp::kGe},
                                                                  {"<=", CheckOp::kLe},
                                                                  {">", CheckOp::kGt},
                                                                  {"<", CheckOp::kLt},
                                                                  {"==", CheckOp::kEq}};
  for (const auto& [name, value] : kOps) {
    if (*text == name) {
      *op = value;
      return true;
    }
  }
  errors->push_back(cp + ".op: expected one of \">=\" \"<=\" \">\" \"<\" \"==\", got " +
                    describe_json_value(c.value("op", json())));
  return false;
}

// The check's threshold in its metric's unit (the Unit table).
bool check_threshold(const json& c, const std::string& cp, const MetricInfo& info, CheckSpec* spec,
                     std::vector<std::string>* errors) {
  const std::string expected = std::string(unit_row(info.unit).example);
  if (!c.contains("value")) {
    errors->push_back(cp + ".value: expected " + expected);
    return false;
  }
  auto th = parse_threshold(c["value"], info.unit);
  if (!th || !std::isfinite(*th)) {
    errors->push_back(cp + ".value: expected " + expected + ", got " + describe_json_value(c["value"]));
    return false;
  }
  spec->threshold = *th;
  spec->threshold_text = c["value"].is_string() ? c["value"].get<std::string>() : c["value"].dump();
  return true;
}

// One check object at cp; false after an error.
bool parse_check(const json& c, const std::string& cp, const PhaseKind& kind, const json& params,
                 CheckSpec* spec, std::vector<std::string>* errors) {
  if (!c.is_object()) {
    errors->push_back(cp + ": expected an object {metric, op, value}, got " + describe_json_value(c));
    return false;
  }
  for (const auto& [k, v] : c.items()) {
    if (kCheckKeys.count(k) == 0)
      errors->push_back(cp + "." + k + ": unknown key; expected metric, op, value, name");
  }
  spec->path = cp;
  const MetricInfo* info = check_metric(c, cp, kind, params, spec, errors);
  if (info == nullptr) return false;
  std::string op;
  if (!check_op(c, cp, *info, &op, &spec->op, errors) || !check_threshold(c, cp, *info, spec, errors))
    return false;
  if (!c.contains("name")) {
    spec->name = spec->metric + " " + op + " " + spec->threshold_text;
  } else if (c["name"].is_string()) {
    spec->name = c["name"].get<std::string>();
  } else {
    errors->push_back(cp + ".name: expected a string");
    return false;
  }
  return true;
}

}  // namespace

void parse_checks(const json& arr, const std::string& path, const PhaseKind& kind, const json& params,
                  std::vector<CheckSpec>* out, std::vector<std::string>* errors) {
  if (!arr.is_array()) {
    errors->push_back(path +
                      ": expected an array of checks like [{\"metric\": \"write_bytes_per_s\", \"op\": "
                      "\">=\", \"value\": \"1GB/s\"}], got " +
                      describe_json_value(arr));
    return;
  }
  for (size_t i = 0; i < arr.size(); ++i) {
    CheckSpec spec;
    if (parse_check(arr[i], path + "[" + std::to_string(i) + "]", kind, params, &spec, errors)) {
      out->push_back(std::move(spec));
    }
  }
}

// `headline`: the metrics the console shows for the phase, instead of the first ones of its table.
void parse_headline(const json& arr, const std::string& path, const PhaseKind& kind,
                    std::vector<std::string>* out, std::vector<std::string>* errors) {
  if (!arr.is_array() || arr.empty() || arr.size() > 8) {
    errors->push_back(path + ": expected an array of 1 to 8 metric names like [\"mlperf_au\"], got " +
                      describe_json_value(arr));
    return;
  }
  for (size_t i = 0; i < arr.size(); ++i) {
    const std::string name = arr[i].is_string() ? arr[i].get<std::string>() : "";
    const MetricInfo* info = name.empty() ? nullptr : find_metric(kind, name);
    if (info == nullptr || name.find('*') != std::string::npos) {
      errors->push_back(path + "[" + std::to_string(i) + "]: expected a metric name of phase kind " +
                        std::string(kind.name) + ", got " + describe_json_value(arr[i]));
      continue;
    }
    out->push_back(name);
  }
}

}  // namespace iofab
