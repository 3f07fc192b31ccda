#include "driver/runner/mlperf_run_rules.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "workloads/phase_table.h"

namespace iofab {

namespace {

constexpr int kMeasuredRuns = 5;
constexpr double kMaxWriteReadGapS = 30;

std::string three_digits(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

MlperfRunRule runs_rule(const RepeatSeries& s) {
  const int measured = static_cast<int>(s.runs.size()) - (s.warmup ? 1 : 0);
  return {.name = "runTimestamps",
          .section = "2.1.17",
          .text = "one warm-up run, then 5 measured runs",
          .passed = s.warmup && measured >= kMeasuredRuns,
          .measured = static_cast<double>(std::max(measured, 0)),
          .limit = kMeasuredRuns};
}

// The widest gap relative to the run before it: gap / that run's duration, < 1 passes.
MlperfRunRule gap_rule(const RepeatSeries& s) {
  double worst = 0;
  for (size_t k = 1; k < s.runs.size(); ++k) {
    const double before = s.runs[k - 1].end_s - s.runs[k - 1].start_s;
    const double gap = std::max(0.0, s.runs[k].start_s - s.runs[k - 1].end_s);
    if (before > 0) worst = std::max(worst, gap / before);
  }
  return {.name = "runTimestampGap",
          .section = "2.1.18",
          .text = "each gap between neighbouring runs shorter than the run before it (gap / run < 1)",
          .passed = worst < 1,
          .measured = worst,
          .limit = 1};
}

MlperfRunRule logs_rule(const RepeatSeries& s) {
  return {.name = "mlpstorageFilesystemCheck",
          .section = "3.4.2, 4.4.2",
          .text = "the logs (this report) on another filesystem than the data (the target)",
          .passed = s.logs_apart.value_or(false),
          .measured = s.logs_apart ? (*s.logs_apart ? 1.0 : 0.0) : -1.0,
          .limit = 1};
}

MlperfRunRule write_read_rule(const RepeatSeries& s) {
  const double worst = *std::max_element(s.write_read_gaps_s.begin(), s.write_read_gaps_s.end());
  return {.name = "checkpointCacheFlushValidation",
          .section = "4.7.1",
          .text = "a checkpoint's read-back starts at most 30 s after its writes end",
          .passed = worst <= kMaxWriteReadGapS,
          .measured = worst,
          .limit = kMaxWriteReadGapS};
}

}  // namespace

std::vector<MlperfRunRule> mlperf_run_rules(const RepeatSeries& s) {
  std::vector<MlperfRunRule> out = {runs_rule(s), gap_rule(s), logs_rule(s)};
  if (!s.write_read_gaps_s.empty()) out.push_back(write_read_rule(s));
  return out;
}

double write_read_gap_seconds(const Report& run) {
  double worst = 0;
  for (size_t i = 0; i < run.phases.size(); ++i) {
    const std::string& written = run.phases[i].kind;  // a checkpoint, when a later kind reads it back
    double between = 0;
    for (size_t j = i + 1; j < run.phases.size(); ++j) {
      const PhaseReport& p = run.phases[j];
      if (const PhaseLink* link = read_back_link(p.kind); link != nullptr && link->kind == written) {
        worst = std::max(worst, between + p.setup_seconds.value_or(0));
        break;
      }
      if (p.kind == written) break;  // a later write: its own read-back is measured from it
      between += p.seconds;
    }
  }
  return worst;
}

std::optional<bool> on_different_filesystems(const std::string& report_path, const std::string& target_path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  // The report's folder (it may not exist yet: its nearest existing parent).
  fs::path dir = fs::absolute(fs::path(report_path), ec).parent_path();
  if (ec) return std::nullopt;
  while (!dir.empty() && !fs::exists(dir, ec) && dir != dir.root_path()) dir = dir.parent_path();
  struct stat a {
  }, b{};
  if (::stat(dir.c_str(), &a) != 0 || ::stat(target_path.c_str(), &b) != 0) return std::nullopt;
  return a.st_dev != b.st_dev;
}

bool is_mlperf_suite(const Report& report) {
  const auto suite = report.run.find("suite");
  if (suite == report.run.end() || !suite->is_object()) return false;
  return suite->value("name", std::string()).rfind("mlperf-", 0) == 0;
}

void apply_mlperf_run_rules(const std::vector<MlperfRunRule>& rules, Report* report) {
  nlohmann::json list = nlohmann::json::array();
  for (const MlperfRunRule& r : rules) {
    list.push_back({{"name", r.name},
                    {"section", r.section},
                    {"rule", r.text},
                    {"passed", r.passed},
                    {"measured", r.measured},
                    {"limit", r.limit}});
    if (r.passed) continue;
    if (report->verdict == "passed") report->verdict = "failed";
    report->verdict_reasons.push_back("MLPerf run rule " + r.name + " (Rules.md " + r.section + ": " +
                                      r.text + ") not met: measured " + three_digits(r.measured));
  }
  report->run["repeat"]["mlperf_rules"] = list;
}

}  // namespace iofab
