#include "reports/report_reader.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <vector>

#include "harness/core/input_file.h"
#include "harness/core/json_input.h"
#include "harness/core/text.h"
#include "harness/core/utf8.h"
#include "harness/phase/params.h"
#include "workloads/phase_table.h"

namespace iofab {

using nlohmann::json;

namespace {

constexpr size_t kMaxErrors = 8;

// "[\"busbw.all_reduce.max\"]": metric names hold dots, so map keys are quoted.
std::string key_path(const std::string& parent, const std::string& key) {
  return parent + "[" + json(key).dump() + "]";
}

std::string field_path(const std::string& parent, const char* key) {
  return parent.empty() ? std::string(key) : parent + "." + key;
}

// Collects every problem (up to kMaxErrors) so a user sees them at once.
class Checker {
 public:
  void fail(const std::string& path, const std::string& expected, const json* got) {
    ++count_;
    if (errors_.size() >= kMaxErrors) return;
    std::string msg = path + ": expected " + expected;
    msg += got == nullptr ? ", but it is missing" : ", got " + describe_json_value(*got);
    errors_.push_back(std::move(msg));
  }
  bool ok() const { return count_ == 0; }
  std::string message() const {
    std::string m;
    for (const auto& e : errors_) m += "\n  " + e;
    if (count_ > errors_.size()) m += "\n  (and " + std::to_string(count_ - errors_.size()) + " more)";
    return m;
  }

  // nullptr when absent (and optional) or of the wrong type (after recording it).
  const json* object(const json& parent, const char* key, const std::string& path, bool required) {
    auto it = parent.find(key);
    if (it == parent.end()) {
      if (required) fail(field_path(path, key), "an object", nullptr);
      return nullptr;
    }
    if (!it->is_object()) {
      fail(field_path(path, key), "an object", &*it);
      return nullptr;
    }
    return &*it;
  }
  const json* array(const json& parent, const char* key, const std::string& path, bool required) {
    auto it = parent.find(key);
    if (it == parent.end()) {
      if (required) fail(field_path(path, key), "an array", nullptr);
      return nullptr;
    }
    if (!it->is_array()) {
      fail(field_path(path, key), "an array", &*it);
      return nullptr;
    }
    return &*it;
  }
  std::string string(const json& parent, const char* key, const std::string& path, bool required,
                     bool non_empty = false) {
    auto it = parent.find(key);
    if (it == parent.end()) {
      if (required) fail(field_path(path, key), non_empty ? "a non-empty string" : "a string", nullptr);
      return "";
    }
    if (!it->is_string() || (non_empty && it->get<std::string>().empty())) {
      fail(field_path(path, key), non_empty ? "a non-empty string" : "a string", &*it);
      return "";
    }
    return it->get<std::string>();
  }
  // A finite number, or null (what the writer puts for a value it could not compute).
  std::optional<double> number_or_null(const json& parent, const char* key, const std::string& path,
                                       bool required) {
    auto it = parent.find(key);
    if (it == parent.end()) {
      if (required) fail(field_path(path, key), "a number or null", nullptr);
      return std::nullopt;
    }
    if (it->is_null()) return std::nullopt;
    if (!it->is_number() || !std::isfinite(it->get<double>())) {
      fail(field_path(path, key), "a number or null", &*it);
      return std::nullopt;
    }
    return it->get<double>();
  }
  bool boolean(const json& parent, const char* key, const std::string& path) {
    auto it = parent.find(key);
    if (it == parent.end() || !it->is_boolean()) {
      fail(field_path(path, key), "true or false", it == parent.end() ? nullptr : &*it);
      return false;
    }
    return it->get<bool>();
  }
  void strings(const json& parent, const char* key, const std::string& path, std::vector<std::string>* out) {
    const json* a = array(parent, key, path, false);
    if (a == nullptr) return;
    for (size_t i = 0; i < a->size(); ++i) {
      if (!(*a)[i].is_string()) {
        fail(field_path(path, key) + "[" + std::to_string(i) + "]", "a string", &(*a)[i]);
        continue;
      }
      if (out != nullptr) out->push_back((*a)[i].get<std::string>());
    }
  }

 private:
  std::vector<std::string> errors_;
  size_t count_ = 0;
};

bool parse_phase_status(const std::string& s, PhaseStatus* out) {
  for (PhaseStatus st : {PhaseStatus::kPassed, PhaseStatus::kFailed, PhaseStatus::kSkipped,
                         PhaseStatus::kError, PhaseStatus::kInterrupted}) {
    if (s == phase_status_text(st)) {
      *out = st;
      return true;
    }
  }
  return false;
}

void check_string_map(Checker& c, const json& details, const char* key, const std::string& path,
                      const std::set<std::string>* allowed, const char* expected) {
  const json* m = c.object(details, key, path, false);
  if (m == nullptr) return;
  for (const auto& [k, v] : m->items()) {
    if (!v.is_string() || (allowed != nullptr && allowed->count(v.get<std::string>()) == 0)) {
      c.fail(key_path(field_path(path, key), k), expected, &v);
    }
  }
}

// details.repeat, written by `iofab run --repeat`: compare reads its spread.
void check_repeat(Checker& c, const json& details, const std::string& path) {
  const json* r = c.object(details, "repeat", path, false);
  if (r == nullptr) return;
  const std::string rp = field_path(path, "repeat");
  const json* stats = c.object(*r, "stats", rp, true);
  if (stats == nullptr) return;
  for (const auto& [name, s] : stats->items()) {
    const std::string sp = key_path(field_path(rp, "stats"), name);
    if (!s.is_object()) {
      c.fail(sp, "an object {mean, stdev, cv, n, values}", &s);
      continue;
    }
    c.number_or_null(s, "mean", sp, true);
    auto sd = c.number_or_null(s, "stdev", sp, true);
    if (sd && *sd < 0) c.fail(field_path(sp, "stdev"), "a number >= 0", &s["stdev"]);
    auto n = s.find("n");
    if (n == s.end() || !n->is_number_integer() || n->get<int64_t>() < 1) {
      c.fail(field_path(sp, "n"), "a whole number >= 1", n == s.end() ? nullptr : &*n);
    }
    const json* values = c.array(s, "values", sp, true);
    if (values != nullptr) {
      for (size_t i = 0; i < values->size(); ++i) {
        if (!(*values)[i].is_number()) {
          c.fail(field_path(sp, "values") + "[" + std::to_string(i) + "]", "a number", &(*values)[i]);
        }
      }
    }
  }
}

void read_check(Checker& c, const json& j, const std::string& path, CheckResult* out) {
  if (!j.is_object()) {
    c.fail(path, "an object {name, metric, op, threshold, value, passed}", &j);
    return;
  }
  out->name = c.string(j, "name", path, true);
  out->metric = c.string(j, "metric", path, true, true);
  out->op = c.string(j, "op", path, true);
  static const std::set<std::string> kOps = {">=", "<=", ">", "<", "=="};
  if (j.contains("op") && j["op"].is_string() && kOps.count(out->op) == 0) {
    c.fail(field_path(path, "op"), "one of \">=\" \"<=\" \">\" \"<\" \"==\"", &j["op"]);
  }
  auto t = c.number_or_null(j, "threshold", path, true);
  out->threshold = t.value_or(std::nan(""));
  out->threshold_text = c.string(j, "threshold_text", path, false);
  auto v = c.number_or_null(j, "value", path, true);
  out->has_value = v.has_value();
  out->value = v.value_or(0);
  out->passed = c.boolean(j, "passed", path);
}

// phases[].verification, absent from reports written before it existed.
void read_verification(Checker& c, const json& j, const std::string& path, PhaseReport* out) {
  const json* v = c.object(j, "verification", path, false);
  if (v == nullptr) return;
  const std::string vp = field_path(path, "verification");
  Verification ver;
  ver.level = c.string(*v, "level", vp, true);
  if (v->contains("level") && (*v)["level"].is_string() && ver.level != kLevelStorage &&
      ver.level != kLevelClient && ver.level != kLevelUnverified) {
    c.fail(field_path(vp, "level"), "one of \"storage\" \"client\" \"unverified\"", &(*v)["level"]);
  }
  ver.direction = c.string(*v, "direction", vp, true);
  if (v->contains("direction") && (*v)["direction"].is_string() && ver.direction != "read" &&
      ver.direction != "write") {
    c.fail(field_path(vp, "direction"), "\"read\" or \"write\"", &(*v)["direction"]);
  }
  const auto bytes = c.number_or_null(*v, "phase_bytes", vp, true);
  if (bytes && *bytes < 0) c.fail(field_path(vp, "phase_bytes"), "a number >= 0", &(*v)["phase_bytes"]);
  ver.phase_bytes = bytes.value_or(0);
  ver.counted_bytes = c.number_or_null(*v, "counted_bytes", vp, false);
  if (ver.counted_bytes && *ver.counted_bytes < 0) {
    c.fail(field_path(vp, "counted_bytes"), "a number >= 0 or null", &(*v)["counted_bytes"]);
  }
  ver.source = c.string(*v, "source", vp, false);
  ver.note = c.string(*v, "note", vp, true);
  out->verification = std::move(ver);
}

// A rate or a duration below 0 is no measurement: iofab never writes one, so the file was edited or
// damaged, and a page or a compare over it would print "-inf%" and nan axes. Other units may be
// negative (a budget's margin, a ratio).
void check_signs(Checker& c, const PhaseReport& p, const std::string& metrics_path) {
  for (const auto& [name, v] : p.metrics.items()) {
    if (!v.is_number() || v.get<double>() >= 0) continue;
    const std::string unit = metric_unit(p, name);
    if (unit == "bytes/s" || unit == "ops/s") c.fail(key_path(metrics_path, name), "a rate >= 0", &v);
    if (unit == "s") c.fail(key_path(metrics_path, name), "a duration >= 0", &v);
  }
}

void read_phase(Checker& c, const json& j, const std::string& path, PhaseReport* out) {
  if (!j.is_object()) {
    c.fail(path, "an object {name, kind, status, result, checks}", &j);
    return;
  }
  out->name = c.string(j, "name", path, true, true);
  out->kind = c.string(j, "kind", path, true);
  const std::string status = c.string(j, "status", path, true);
  if (j.contains("status") && j["status"].is_string() && !parse_phase_status(status, &out->status)) {
    c.fail(field_path(path, "status"), "one of \"passed\" \"failed\" \"skipped\" \"error\" \"interrupted\"",
           &j["status"]);
  }
  out->reason = c.string(j, "reason", path, false);
  auto secs = c.number_or_null(j, "seconds", path, false);
  if (secs && *secs < 0) c.fail(field_path(path, "seconds"), "a number >= 0", &j["seconds"]);
  out->seconds = secs.value_or(0);
  // Absent from reports older than the field, and for a phase with no timed window.
  out->setup_seconds = c.number_or_null(j, "setup_seconds", path, false);
  if (out->setup_seconds && *out->setup_seconds < 0) {
    c.fail(field_path(path, "setup_seconds"), "a number >= 0", &j["setup_seconds"]);
  }
  if (const json* params = c.object(j, "params", path, false)) out->params = *params;
  if (const json* result = c.object(j, "result", path, true)) {
    const std::string rp = field_path(path, "result");
    if (const json* metrics = c.object(*result, "metrics", rp, true)) {
      for (const auto& [name, v] : metrics->items()) {
        if (v.is_null() || (v.is_number() && std::isfinite(v.get<double>()))) {
          out->metrics[name] = v;
        } else {
          c.fail(key_path(field_path(rp, "metrics"), name), "a number or null", &v);
        }
      }
    }
    if (const json* details = c.object(*result, "details", rp, false)) {
      out->details = *details;
      const std::string dp = field_path(rp, "details");
      check_string_map(c, *details, "units", dp, nullptr, "a unit name like \"bytes/s\"");
      static const std::set<std::string> kBetter = {"higher", "lower", "neither"};
      check_string_map(c, *details, "better", dp, &kBetter, "one of \"higher\" \"lower\" \"neither\"");
      c.strings(*details, "headline", dp, nullptr);
      check_repeat(c, *details, dp);
    }
    check_signs(c, *out, field_path(rp, "metrics"));
  }
  c.strings(j, "warnings", path, &out->warnings);
  read_verification(c, j, path, out);
  if (const json* checks = c.array(j, "checks", path, false)) {
    for (size_t i = 0; i < checks->size(); ++i) {
      read_check(c, (*checks)[i], field_path(path, "checks") + "[" + std::to_string(i) + "]",
                 &out->checks.emplace_back());
    }
  }
}

}  // namespace

Status read_report_json(const json& doc, const std::string& source, LoadedReport* out) {
  const std::string prefix = source + ": ";
  if (!doc.is_object()) {
    return Status::Invalid(prefix +
                           "expected an iofab report (a JSON object with schema_version, run, phases), "
                           "got " +
                           describe_json_value(doc));
  }
  Checker c;
  LoadedReport r;
  // Comparisons and pages write the source into JSON and XML: keep it valid UTF-8.
  r.source = valid_utf8(source);
  auto sv = doc.find("schema_version");
  if (sv == doc.end() || !sv->is_number_integer() || sv->get<int64_t>() < 1 || sv->get<int64_t>() > 1000000) {
    c.fail("schema_version", "a whole number >= 1", sv == doc.end() ? nullptr : &*sv);
  } else {
    r.schema_version = static_cast<int>(sv->get<int64_t>());
  }
  Report& rep = r.report;
  if (const json* t = c.object(doc, "tool", "", false)) rep.tool = *t;
  if (const json* run = c.object(doc, "run", "", true)) {
    rep.run = *run;
    const auto duration = c.number_or_null(*run, "duration_s", "run", false);
    if (duration && *duration < 0) c.fail("run.duration_s", "a duration >= 0", &(*run)["duration_s"]);
    if (const json* suite = c.object(*run, "suite", "run", false)) {
      c.string(*suite, "name", "run.suite", false);
      c.string(*suite, "sha256", "run.suite.sha256", false);
      c.strings(*suite, "sets", "run.suite", nullptr);
    }
  }
  if (const json* cl = c.object(doc, "cluster", "", false)) {
    rep.cluster = *cl;
    if (const json* hosts = c.array(*cl, "hosts", "cluster", false)) {
      for (size_t i = 0; i < hosts->size(); ++i) {
        if (!(*hosts)[i].is_object())
          c.fail("cluster.hosts[" + std::to_string(i) + "]", "an object", &(*hosts)[i]);
      }
    }
  }
  if (const json* t = c.object(doc, "target", "", false)) rep.target = *t;
  if (const json* phases = c.array(doc, "phases", "", true)) {
    std::set<std::string> names;
    for (size_t i = 0; i < phases->size(); ++i) {
      const std::string p = "phases[" + std::to_string(i) + "]";
      PhaseReport& pr = rep.phases.emplace_back();
      read_phase(c, (*phases)[i], p, &pr);
      if (!pr.name.empty() && !names.insert(pr.name).second) {
        c.fail(p + ".name", "a name no other phase has (phases are matched by name)", &(*phases)[i]["name"]);
      }
    }
  }
  c.strings(doc, "warnings", "", &rep.warnings);
  if (const json* v = c.object(doc, "verdict", "", true)) {
    rep.verdict = c.string(*v, "status", "verdict", true);
    static const std::set<std::string> kVerdicts = {"passed", "failed", "error", "interrupted"};
    if (v->contains("status") && (*v)["status"].is_string() && kVerdicts.count(rep.verdict) == 0) {
      c.fail("verdict.status", "one of \"passed\" \"failed\" \"error\" \"interrupted\"", &(*v)["status"]);
    }
    c.strings(*v, "reasons", "verdict", &rep.verdict_reasons);
  }
  if (!c.ok()) return Status::Invalid(prefix + "not a valid iofab report:" + c.message());
  *out = std::move(r);
  return Status::Ok();
}

Status read_report_file(const std::string& path, LoadedReport* out) {
  std::string text;
  Status s = read_input_file(path, kMaxReportFileBytes, &text);
  if (!s.ok()) return Status::Invalid(s.message());
  json doc;
  s = parse_json_input(text, {}, &doc);
  if (!s.ok()) return Status::Invalid(path + ": " + s.message());
  return read_report_json(doc, path, out);
}

const json* find_by_metric(const json& map, const std::string& metric) {
  if (!map.is_object()) return nullptr;
  auto it = map.find(metric);
  if (it != map.end()) return &*it;
  // Families: "busbw.*" covers "busbw.all_reduce.1048576"; the longest prefix wins.
  const json* best = nullptr;
  size_t best_len = 0;
  for (auto f = map.begin(); f != map.end(); ++f) {
    const std::string& k = f.key();
    if (k.size() < 2 || k.compare(k.size() - 2, 2, ".*") != 0) continue;
    const size_t plen = k.size() - 1;  // keeps the dot
    if (metric.size() > plen && metric.compare(0, plen, k, 0, plen) == 0 && plen > best_len) {
      best = &f.value();
      best_len = plen;
    }
  }
  return best;
}

namespace {

bool starts_with(const std::string& s, std::string_view prefix) { return s.rfind(prefix, 0) == 0; }

std::string unit_from_name(const std::string& m) {
  if (m.find("bytes_per_s") != std::string::npos || starts_with(m, "busbw.") || starts_with(m, "algbw.")) {
    return "bytes/s";
  }
  if (ends_with(m, "_ops_per_s")) return "ops/s";
  if (ends_with(m, "_per_s")) return "count";  // samples_per_s: a rate of things, not a time
  if (ends_with(m, "_seconds") || ends_with(m, "_s") || m.find("_seconds.") != std::string::npos) return "s";
  if (ends_with(m, "_bytes") || m.find("bytes_per_rank") != std::string::npos) return "bytes";
  if (m == "au" || m == "au_min" || m.find("fraction") != std::string::npos) return "fraction";
  if (ends_with(m, "_ratio") || ends_with(m, "margin")) return "ratio";
  return "count";
}

}  // namespace

std::string direction_from_name(const std::string& m) {
  if (m.find("bytes_per_s") != std::string::npos || starts_with(m, "busbw.") || starts_with(m, "algbw.") ||
      ends_with(m, "_per_s") || m == "au" || m == "au_min" || ends_with(m, "margin")) {
    return "higher";
  }
  if (ends_with(m, "_seconds") || ends_with(m, "_s") || starts_with(m, "latency") ||
      m.find("latency_") != std::string::npos || starts_with(m, "stall") || m == "wrong_elements" ||
      starts_with(m, "corrupt_") || starts_with(m, "exposed_comm_fraction.")) {
    return "lower";
  }
  return "neither";
}

std::string metric_unit(const PhaseReport& phase, const std::string& metric) {
  if (phase.details.is_object() && phase.details.contains("units")) {
    const json* u = find_by_metric(phase.details["units"], metric);
    if (u != nullptr && u->is_string()) return u->get<std::string>();
  }
  // A report that states no units (written before details.units): its kind's row, where this build knows
  // the kind and the metric; a guess from the name for the rest.
  if (const PhaseKind* kind = find_phase_kind(phase.kind); kind != nullptr) {
    if (const MetricInfo* info = find_metric(*kind, metric); info != nullptr) {
      return std::string(unit_row(info->unit).text);
    }
  }
  return unit_from_name(metric);
}

std::string metric_better(const PhaseReport& phase, const std::string& metric) {
  if (phase.details.is_object() && phase.details.contains("better")) {
    const json* b = find_by_metric(phase.details["better"], metric);
    if (b != nullptr && b->is_string()) return b->get<std::string>();
  }
  return direction_from_name(metric);
}

std::optional<double> metric_value(const PhaseReport& phase, const std::string& metric) {
  if (!phase.metrics.is_object()) return std::nullopt;
  auto it = phase.metrics.find(metric);
  if (it == phase.metrics.end() || !it->is_number()) return std::nullopt;
  const double v = it->get<double>();
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}

bool natural_less(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const bool da = std::isdigit(static_cast<unsigned char>(a[i])) != 0;
    const bool db = std::isdigit(static_cast<unsigned char>(b[j])) != 0;
    if (da && db) {
      size_t ie = i, je = j;
      while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie]))) ++ie;
      while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je]))) ++je;
      std::string na = a.substr(i, ie - i), nb = b.substr(j, je - j);
      na.erase(0, std::min(na.find_first_not_of('0'), na.size()));
      nb.erase(0, std::min(nb.find_first_not_of('0'), nb.size()));
      if (na.size() != nb.size()) return na.size() < nb.size();
      if (na != nb) return na < nb;
      i = ie;
      j = je;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

std::vector<std::string> ordered_metric_names(const std::vector<const PhaseReport*>& phases) {
  std::vector<std::string> head, rest;
  std::set<std::string> seen;
  const auto present = [&](const std::string& m) {
    return std::any_of(phases.begin(), phases.end(),
                       [&](const PhaseReport* p) { return p != nullptr && p->metrics.contains(m); });
  };
  for (const PhaseReport* p : phases) {
    if (p == nullptr || !p->details.is_object() || !p->details.contains("headline")) continue;
    const json& h = p->details["headline"];
    if (!h.is_array()) continue;
    for (const auto& n : h) {
      if (n.is_string() && present(n.get<std::string>()) && seen.insert(n.get<std::string>()).second) {
        head.push_back(n.get<std::string>());
      }
    }
  }
  for (const PhaseReport* p : phases) {
    if (p == nullptr || !p->metrics.is_object()) continue;
    for (const auto& [k, v] : p->metrics.items()) {
      if (seen.insert(k).second) rest.push_back(k);
    }
  }
  std::sort(rest.begin(), rest.end(), natural_less);
  head.insert(head.end(), rest.begin(), rest.end());
  return head;
}

}  // namespace iofab
