#include "reports/side_by_side.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "harness/core/units.h"
#include "reports/console_report.h"
#include "reports/phase_definitions.h"
#include "reports/reducibility_check.h"
#include "reports/repeat_stats.h"
#include "workloads/phase_table.h"

namespace iofab {

using nlohmann::json;

namespace {

const json& member(const json& j, const char* key) {
  static const json kNull;
  if (!j.is_object()) return kNull;
  auto it = j.find(key);
  return it == j.end() ? kNull : *it;
}

// A scalar as text: strings as they are, numbers and booleans as JSON writes them.
std::string scalar(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "";
  if (v.is_array()) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + scalar(x);
    return s;
  }
  return v.dump();
}

std::string bytes_text(const json& v) {
  return v.is_number() ? units::format_bytes(v.get<double>()) : std::string();
}

std::string hosts_text(const Report& r) {
  const json& hosts = member(r.cluster, "hosts");
  if (!hosts.is_array() || hosts.empty()) return "";
  std::string out;
  size_t shown = 0;
  for (const auto& h : hosts) {
    if (shown == 4) {
      out += "; and " + std::to_string(hosts.size() - 4) + " more";
      break;
    }
    std::string line = scalar(member(h, "hostname"));
    std::string facts;
    if (member(h, "cpus").is_number()) facts += scalar(member(h, "cpus")) + " CPUs";
    if (member(h, "memory_bytes").is_number())
      facts += (facts.empty() ? "" : ", ") + bytes_text(member(h, "memory_bytes"));
    if (!scalar(member(h, "kernel")).empty())
      facts += (facts.empty() ? "" : ", ") + scalar(member(h, "kernel"));
    if (!scalar(member(h, "os")).empty()) facts += (facts.empty() ? "" : ", ") + scalar(member(h, "os"));
    if (member(h, "ranks").is_number())
      facts += (facts.empty() ? "" : ", ") + scalar(member(h, "ranks")) + " ranks";
    if (!facts.empty()) line += " (" + facts + ")";
    out += (out.empty() ? "" : "; ") + line;
    ++shown;
  }
  return out;
}

std::string gpus_text(const Report& r) {
  const json& hosts = member(r.cluster, "hosts");
  if (!hosts.is_array()) return "";
  std::map<std::string, size_t> count;
  for (const auto& h : hosts) {
    const json& g = member(h, "cuda_devices");
    if (!g.is_array()) continue;
    for (const auto& d : g) count[scalar(member(d, "name"))]++;
  }
  std::string out;
  for (const auto& [name, n] : count) out += (out.empty() ? "" : ", ") + std::to_string(n) + " x " + name;
  return out.empty() ? "none" : out;
}

std::string rdma_text(const Report& r) {
  const json& hosts = member(r.cluster, "hosts");
  if (!hosts.is_array()) return "";
  std::set<std::string> names;
  for (const auto& h : hosts) {
    const json& d = member(h, "rdma_devices");
    if (!d.is_array()) continue;
    for (const auto& x : d) names.insert(scalar(x));
  }
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

std::string target_text(const Report& r) {
  const json& t = r.target;
  std::string s = scalar(member(t, "path"));
  std::string fs = scalar(member(t, "fs_type"));
  // mount_source since the field exists; device in older reports holds the same.
  std::string dev = scalar(member(t, "mount_source"));
  if (dev.empty()) dev = scalar(member(t, "device"));
  if (!fs.empty() || !dev.empty()) s += " (" + fs + (dev.empty() ? "" : " on " + dev) + ")";
  return s;
}

std::string devices_text(const Report& r) {
  const json& d = member(r.target, "devices");
  if (!d.is_array()) return scalar(member(r.target, "block_device"));
  return d.empty() ? "none (no block device to count: figures cannot be verified from /proc/diskstats)"
                   : scalar(d);
}

std::string repeat_text(const Report& r) {
  const json& rep = member(r.run, "repeat");
  if (!rep.is_object()) return "1 run";
  std::string s = scalar(member(rep, "completed")) + " runs";
  if (member(rep, "count").is_number() && member(rep, "count") != member(rep, "completed")) {
    s += " of " + scalar(member(rep, "count"));
  }
  s += member(rep, "warmup").is_object() ? " after a warm-up run" : ", no warm-up";
  return s;
}

std::string status_upper(const std::string& s) {
  std::string u = s;
  for (auto& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return u;
}

// Marks a row's cells when systems disagree, so a reader sees what sets them apart.
void mark_differences(std::vector<Cell>* row) {
  if (row->size() <= 2) return;
  bool differ = false;
  for (size_t i = 2; i < row->size(); ++i) differ = differ || (*row)[i].text != (*row)[1].text;
  if (!differ) return;
  for (size_t i = 1; i < row->size(); ++i) {
    if ((*row)[i].kind == Cell::Kind::kPlain) (*row)[i].kind = Cell::Kind::kDiffers;
  }
}

std::string section_anchor(const std::string& prefix, const std::string& name) {
  std::string a = prefix;
  for (char c : name) a += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
  return a;
}

std::string value_with_spread(const PhaseReport& p, const std::string& metric) {
  auto v = metric_value(p, metric);
  if (!v) return p.metrics.contains(metric) ? "null" : "";
  const std::string unit = metric_unit(p, metric);
  std::string s = format_metric_value(*v, unit);
  if (auto st = repeat_stats_of(p, metric); st && st->n > 1) {
    char cv[32];
    std::snprintf(cv, sizeof cv, "%.1f%%", st->cv * 100);
    s += " +/- " + format_metric_value(st->stdev, unit) + " (cv " + cv + ", n " + std::to_string(st->n) + ")";
  }
  return s;
}

struct CheckKey {
  std::string phase, name, metric, op;
  bool budget = false;  // the metric is its phase kind's budget metric: shown first
};

}  // namespace

std::string default_label(const std::string& path) {
  std::string s = path;
  const auto slash = s.rfind('/');
  if (slash != std::string::npos) s = s.substr(slash + 1);
  if (s.size() > 5 && s.compare(s.size() - 5, 5, ".json") == 0) s.resize(s.size() - 5);
  return s.empty() ? path : s;
}

std::vector<std::string> phase_names(const std::vector<SystemReport>& systems) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& s : systems) {
    for (const auto& p : s.loaded.report.phases) {
      if (seen.insert(p.name).second) out.push_back(p.name);
    }
  }
  return out;
}

namespace {

// The systems table's rows after the verdict: each a name and what a report says there ("" shows "-").
std::string ranks_text(const Report& r, const LoadedReport&) {
  std::string s = scalar(member(r.cluster, "ranks"));
  const std::string comm = scalar(member(r.cluster, "comm"));
  return comm.empty() ? s : s + " (" + comm + ")";
}

std::string filesystem_text(const Report& r, const LoadedReport&) {
  std::string s = scalar(member(r.target, "fs_type"));
  const std::string access = scalar(member(r.target, "access"));
  return access.empty() ? s : s + " (" + access + ")";
}

std::string mount_source_text(const Report& r, const LoadedReport&) {
  const std::string s = scalar(member(r.target, "mount_source"));
  return s.empty() ? scalar(member(r.target, "device")) : s;
}

std::string target_free_text(const Report& r, const LoadedReport&) {
  std::string s = bytes_text(member(r.target, "free_bytes"));
  const std::string total = bytes_text(member(r.target, "total_bytes"));
  return total.empty() ? s : s + " of " + total;
}

std::string suite_text(const Report& r, const LoadedReport&) {
  const json& suite = member(r.run, "suite");
  std::string sha = scalar(member(suite, "sha256"));
  if (sha.size() > 12) sha.resize(12);
  std::string s = scalar(member(suite, "name"));
  if (!sha.empty()) s += " (sha256 " + sha + ")";
  return s;
}

std::string tool_text(const Report& r, const LoadedReport& l) {
  std::string s = scalar(member(r.tool, "version"));
  const std::string sha = scalar(member(r.tool, "git_sha"));
  if (!sha.empty()) s += " (" + sha + ")";
  const std::string backends = scalar(member(r.tool, "backends"));
  if (!backends.empty()) s += ", backends " + backends;
  if (l.schema_version != kSchemaVersion) s += ", report schema " + std::to_string(l.schema_version);
  return s;
}

// What the written data let the storage reduce: runs that differ here do not compare (warned above).
std::string reducibility_row_text(const Report& r, const LoadedReport&) {
  std::string s;
  for (const auto& p : r.phases) {
    const std::string text = reducibility_text(p);
    if (text != "none") s += (s.empty() ? "" : "; ") + p.name + ": " + text;
  }
  return s.empty() ? std::string("none (incompressible, no dedup)") : s;
}

struct SystemsRow {
  const char* name;
  std::string (*text)(const Report& r, const LoadedReport& l);
};

const SystemsRow kSystemsRows[] = {
    {.name = "hosts", .text = [](const Report& r, const LoadedReport&) { return hosts_text(r); }},
    {.name = "ranks", .text = &ranks_text},
    {.name = "GPUs", .text = [](const Report& r, const LoadedReport&) { return gpus_text(r); }},
    {.name = "RDMA devices", .text = [](const Report& r, const LoadedReport&) { return rdma_text(r); }},
    {.name = "target", .text = [](const Report& r, const LoadedReport&) { return target_text(r); }},
    {.name = "filesystem", .text = &filesystem_text},
    {.name = "mount source", .text = &mount_source_text},
    {.name = "mount options",
     .text = [](const Report& r, const LoadedReport&) { return scalar(member(r.target, "mount_options")); }},
    {.name = "block devices", .text = [](const Report& r, const LoadedReport&) { return devices_text(r); }},
    {.name = "target free", .text = &target_free_text},
    {.name = "suite", .text = &suite_text},
    {.name = "--set",
     .text = [](const Report& r,
                const LoadedReport&) { return scalar(member(member(r.run, "suite"), "sets")); }},
    {.name = "runs", .text = [](const Report& r, const LoadedReport&) { return repeat_text(r); }},
    {.name = "started",
     .text = [](const Report& r, const LoadedReport&) { return scalar(member(r.run, "start_time")); }},
    {.name = "iofab", .text = &tool_text},
    {.name = "data reducibility", .text = &reducibility_row_text},
};

// One row: each system's text, the row marked where they differ.
std::vector<Cell> systems_row(const std::vector<SystemReport>& systems, const SystemsRow& row) {
  std::vector<Cell> r{{row.name, Cell::Kind::kPlain}};
  for (const auto& s : systems) {
    const std::string v = row.text(s.loaded.report, s.loaded);
    r.push_back({v.empty() ? "-" : v, Cell::Kind::kPlain});
  }
  mark_differences(&r);
  return r;
}

// Per phase, whether its figure is the storage's: an unverified one is marked as a failed check is.
void add_verification_rows(const std::vector<SystemReport>& systems, Table* t) {
  for (const auto& name : phase_names(systems)) {
    std::vector<Cell> r{{"verification: " + name, Cell::Kind::kPlain}};
    bool any = false;
    for (const auto& s : systems) {
      const PhaseReport* p = find_phase(s.loaded.report, name);
      if (p == nullptr || !p->verification) {
        r.push_back({"-", Cell::Kind::kAbsent});
        continue;
      }
      any = true;
      const bool verified = p->verification->level != kLevelUnverified;
      r.push_back({p->verification->note, verified ? Cell::Kind::kPass : Cell::Kind::kFail});
    }
    if (any) t->rows.push_back(std::move(r));
  }
}

}  // namespace

Table systems_table(const std::vector<SystemReport>& systems) {
  Table t;
  t.id = "systems";
  t.title = "Systems";
  t.note = "Rows whose values differ between the systems are marked.";
  t.head.push_back("");
  for (const auto& s : systems) t.head.push_back(s.label);
  t.rows.push_back(systems_row(
      systems, {.name = "report", .text = [](const Report&, const LoadedReport& l) { return l.source; }}));
  std::vector<Cell> verdict{{"verdict", Cell::Kind::kPlain}};
  for (const auto& s : systems) {
    const std::string v = s.loaded.report.verdict;
    verdict.push_back({v, v == "passed" ? Cell::Kind::kPass : Cell::Kind::kFail});
  }
  t.rows.push_back(std::move(verdict));
  for (const SystemsRow& row : kSystemsRows) t.rows.push_back(systems_row(systems, row));
  add_verification_rows(systems, &t);
  return t;
}

namespace {

// The metric a phase's kind shows as its budget row ("budget_margin" for checkpoint); "" for none.
std::string_view budget_metric_of(const PhaseReport& p) {
  const PhaseKind* kind = find_phase_kind(p.kind);
  return kind != nullptr ? kind->budget_metric : std::string_view();
}

// Every (phase, check) once, budget checks first, else in phase order.
std::vector<CheckKey> check_keys(const std::vector<SystemReport>& systems) {
  std::vector<CheckKey> keys;
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& name : phase_names(systems)) {
    for (const auto& s : systems) {
      const PhaseReport* p = find_phase(s.loaded.report, name);
      if (p == nullptr) continue;
      for (const auto& c : p->checks) {
        if (seen.emplace(name, c.name).second) {
          keys.push_back(
              {name, c.name, c.metric, c.op, !c.metric.empty() && c.metric == budget_metric_of(*p)});
        }
      }
    }
  }
  std::stable_partition(keys.begin(), keys.end(), [](const CheckKey& k) { return k.budget; });
  return keys;
}

// "pass: margin 1.2" for each system's budget metric (>= 1 passes).
std::vector<Cell> budget_row(const std::vector<SystemReport>& systems, const std::string& name,
                             const std::string& kind, const std::string& metric) {
  std::vector<Cell> r{{name, Cell::Kind::kPlain},
                      {kind + " budget: " + metric + " >= 1 (the 5% rule)", Cell::Kind::kPlain}};
  for (const auto& s : systems) {
    const PhaseReport* p = find_phase(s.loaded.report, name);
    auto v = p != nullptr ? metric_value(*p, metric) : std::nullopt;
    if (!v) {
      r.push_back({p == nullptr ? "-" : "no value", p == nullptr ? Cell::Kind::kAbsent : Cell::Kind::kFail});
      continue;
    }
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.3g", *v);
    r.push_back({std::string(*v >= 1 ? "pass" : "FAIL") + ": margin " + buf,
                 *v >= 1 ? Cell::Kind::kPass : Cell::Kind::kFail});
  }
  return r;
}

// A phase whose kind has a budget metric that no check asks about still shows it, from the metric.
std::vector<std::vector<Cell>> budget_rows(const std::vector<SystemReport>& systems,
                                           const std::vector<CheckKey>& keys) {
  std::vector<std::vector<Cell>> rows;
  for (const auto& name : phase_names(systems)) {
    std::string kind, metric;
    bool has_value = false, checked = false;
    for (const auto& s : systems) {
      const PhaseReport* p = find_phase(s.loaded.report, name);
      if (p == nullptr || budget_metric_of(*p).empty()) continue;
      kind = p->kind;
      metric = std::string(budget_metric_of(*p));
      has_value = has_value || p->metrics.contains(metric);
    }
    for (const auto& k : keys) checked = checked || (k.phase == name && k.metric == metric);
    if (!metric.empty() && has_value && !checked) rows.push_back(budget_row(systems, name, kind, metric));
  }
  return rows;
}

// Each system's verdict on one check: "pass: 2.1 GB/s", "FAIL: no value (phase error)", "-" where absent.
std::vector<Cell> check_row(const std::vector<SystemReport>& systems, const CheckKey& k) {
  std::vector<Cell> r{{k.phase, Cell::Kind::kPlain}, {k.name, Cell::Kind::kPlain}};
  for (const auto& s : systems) {
    const PhaseReport* p = find_phase(s.loaded.report, k.phase);
    const CheckResult* c = nullptr;
    if (p != nullptr) {
      for (const auto& x : p->checks) {
        if (x.name == k.name) c = &x;
      }
    }
    if (c == nullptr) {
      r.push_back({"-", Cell::Kind::kAbsent});
      continue;
    }
    const std::string value = c->has_value
                                  ? format_metric_value(c->value, metric_unit(*p, c->metric))
                                  : "no value (phase " + std::string(phase_status_text(p->status)) + ")";
    r.push_back({std::string(c->passed ? "pass" : "FAIL") + ": " + value,
                 c->passed ? Cell::Kind::kPass : Cell::Kind::kFail});
  }
  return r;
}

}  // namespace

Table checks_table(const std::vector<SystemReport>& systems) {
  Table t;
  t.id = "checks";
  t.title = "Checks";
  t.head = {"phase", "check"};
  for (const auto& s : systems) t.head.push_back(s.label);
  const std::vector<CheckKey> keys = check_keys(systems);
  std::vector<std::vector<Cell>> budgets = budget_rows(systems, keys);
  for (auto& r : budgets) t.rows.push_back(std::move(r));
  for (const auto& k : keys) t.rows.push_back(check_row(systems, k));
  std::vector<Cell> verdict{{"", Cell::Kind::kPlain}, {"verdict", Cell::Kind::kPlain}};
  for (const auto& s : systems) {
    const std::string v = s.loaded.report.verdict;
    verdict.push_back({status_upper(v), v == "passed" ? Cell::Kind::kPass : Cell::Kind::kFail});
  }
  t.rows.push_back(std::move(verdict));
  if (keys.empty() && budgets.empty()) t.note = "No report holds a check.";
  return t;
}

namespace {

// What the phase's figures mean: one text when every system's phase defines them alike, else each
// system's, labelled.
std::string definitions_note(const std::vector<SystemReport>& systems,
                             const std::vector<const PhaseReport*>& phases) {
  std::vector<std::string> texts;
  for (const PhaseReport* p : phases) texts.push_back(p != nullptr ? phase_definitions(*p) : "");
  std::set<std::string> distinct(texts.begin(), texts.end());
  distinct.erase("");
  if (distinct.size() <= 1) return distinct.empty() ? "" : *distinct.begin();
  std::string out;
  for (size_t i = 0; i < texts.size(); ++i) {
    if (!texts[i].empty()) out += (out.empty() ? "" : " ") + systems[i].label + ": " + texts[i];
  }
  return out;
}

}  // namespace

std::vector<Table> metric_tables(const std::vector<SystemReport>& systems) {
  std::vector<Table> out;
  for (const auto& name : phase_names(systems)) {
    Table t;
    t.id = section_anchor("metrics-", name);
    std::vector<const PhaseReport*> phases;
    std::string kind;
    for (const auto& s : systems) {
      phases.push_back(find_phase(s.loaded.report, name));
      if (phases.back() != nullptr && kind.empty()) kind = phases.back()->kind;
    }
    t.title = name + (kind.empty() || kind == name ? "" : " (" + kind + ")");
    t.note = definitions_note(systems, phases);
    t.head.push_back("metric");
    for (const auto& s : systems) t.head.push_back(s.label);
    std::vector<Cell> status{{"status", Cell::Kind::kPlain}};
    for (const PhaseReport* p : phases) {
      if (p == nullptr) {
        status.push_back({"not run", Cell::Kind::kAbsent});
        continue;
      }
      std::string s = phase_status_text(p->status);
      if (!p->reason.empty()) s += ": " + p->reason;
      const bool good = p->status == PhaseStatus::kPassed;
      status.push_back({s, good                                 ? Cell::Kind::kPass
                           : p->status == PhaseStatus::kSkipped ? Cell::Kind::kAbsent
                                                                : Cell::Kind::kFail});
    }
    t.rows.push_back(std::move(status));
    for (const auto& m : ordered_metric_names(phases)) {
      std::vector<Cell> r{{m, Cell::Kind::kPlain}};
      for (const PhaseReport* p : phases) {
        const std::string v = p != nullptr ? value_with_spread(*p, m) : "";
        r.push_back({v.empty() ? "-" : v, v.empty() ? Cell::Kind::kAbsent : Cell::Kind::kPlain});
      }
      t.rows.push_back(std::move(r));
    }
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<Table> param_tables(const std::vector<SystemReport>& systems) {
  std::vector<Table> out;
  for (const auto& name : phase_names(systems)) {
    Table t;
    t.id = section_anchor("params-", name);
    t.title = name;
    t.head.push_back("parameter");
    for (const auto& s : systems) t.head.push_back(s.label);
    std::vector<std::string> keys;
    std::set<std::string> seen;
    for (const auto& s : systems) {
      const PhaseReport* p = find_phase(s.loaded.report, name);
      if (p == nullptr || !p->params.is_object()) continue;
      for (const auto& [k, v] : p->params.items()) {
        if (seen.insert(k).second) keys.push_back(k);
      }
    }
    for (const auto& k : keys) {
      std::vector<Cell> r{{k, Cell::Kind::kPlain}};
      for (const auto& s : systems) {
        const PhaseReport* p = find_phase(s.loaded.report, name);
        if (p == nullptr || !p->params.is_object() || !p->params.contains(k)) {
          r.push_back({"-", Cell::Kind::kAbsent});
          continue;
        }
        const json& v = p->params[k];
        r.push_back({v.is_string() ? v.get<std::string>() : v.dump(), Cell::Kind::kPlain});
      }
      mark_differences(&r);
      t.rows.push_back(std::move(r));
    }
    if (keys.empty()) t.note = "No parameters recorded.";
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<std::string> reducibility_warnings(const std::vector<SystemReport>& systems) {
  std::vector<const Report*> reports;
  std::vector<std::string> labels;
  for (const auto& s : systems) {
    reports.push_back(&s.loaded.report);
    labels.push_back(s.label);
  }
  return reducibility_mismatches(reports, labels);
}

}  // namespace iofab
