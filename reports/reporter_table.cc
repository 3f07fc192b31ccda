// The reporter table: the one place that lists output formats.
#include <sstream>

#include "harness/core/json_text.h"
#include "reports/compare_format.h"
#include "reports/console_report.h"
#include "reports/html_report.h"
#include "reports/json_report.h"
#include "reports/junit_report.h"
#include "reports/markdown_report.h"
#include "reports/openmetrics_report.h"
#include "reports/reporter.h"

namespace iofab {

namespace {

// A page formats one report as a page of one system, labelled with the run's id.
std::vector<SystemReport> one_system(const Report& report) {
  SystemReport s;
  s.label = report.run.value("id", std::string("report"));
  s.loaded.source = s.label;
  s.loaded.schema_version = kSchemaVersion;
  s.loaded.report = report;
  return {std::move(s)};
}

std::string html_for_run(const Report& r) { return render_html_report(one_system(r)); }
std::string markdown_for_run(const Report& r) { return render_markdown_report(one_system(r)); }

std::string console_for_run(const Report& r) {
  std::ostringstream out;
  write_console_summary(r, out);
  return out.str();
}

std::string console_for_comparison(const Comparison& cmp) {
  std::ostringstream out;
  write_comparison_text(cmp, out);
  return out.str();
}

std::string json_for_comparison(const Comparison& cmp) {
  return json_text(comparison_to_json(cmp), 2) + "\n";
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

const std::vector<Reporter>& reporter_table() {
  static const std::vector<Reporter> kTable = {
      {"html", "one self-contained page: checks, systems, SVG plots, every metric and parameter", ".html",
       &html_for_run, &render_html_report, "page", nullptr},
      {"md", "the page's tables in Markdown, no plots (a wiki, a merge request, a job summary)", ".md",
       &markdown_for_run, &render_markdown_report, "markdown", &comparison_to_markdown},
      {"json", "the canonical report: every figure in base units (docs/report-reference.md)", ".json",
       &render_json_report, nullptr, "", &json_for_comparison},
      {"console", "the summary a person reads: headline figures, checks, verdict", ".txt", &console_for_run,
       nullptr, "", &console_for_comparison},
      {"junit", "JUnit XML for CI: a test case per phase and per check", ".xml", &junit_for_run, nullptr, "",
       nullptr},
      {"openmetrics",
       "OpenMetrics text: each headline figure and check as a gauge with the run's labels (node_exporter's "
       "textfile collector, the Pushgateway)",
       ".prom", &openmetrics_for_run, &openmetrics_for_systems, "metrics", nullptr},
  };
  return kTable;
}

const Reporter* find_reporter(std::string_view name) {
  for (const auto& r : reporter_table()) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

std::vector<const Reporter*> page_reporters() {
  std::vector<const Reporter*> out;
  for (const auto& r : reporter_table()) {
    if (r.render_page != nullptr) out.push_back(&r);
  }
  return out;
}

const Reporter& page_reporter_for(std::string_view path) {
  const auto pages = page_reporters();
  for (const Reporter* r : pages) {
    if (ends_with(path, r->extension)) return *r;
  }
  return *pages.front();
}

const Reporter& comparison_reporter_for(std::string_view path) {
  for (const auto& r : reporter_table()) {
    if (r.render_comparison != nullptr && ends_with(path, r.extension)) return r;
  }
  return *find_reporter("console");
}

std::string names_as_choices(const std::vector<const Reporter*>& reporters) {
  std::string out;
  for (size_t i = 0; i < reporters.size(); ++i) {
    if (i > 0) out += i + 1 == reporters.size() ? " or " : ", ";
    out += reporters[i]->name;
  }
  return out;
}

}  // namespace iofab
