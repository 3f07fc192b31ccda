// The reporter table: the one place that lists output formats.
#include <sstream>

#include "harness/core/json_text.h"
#include "harness/core/text.h"
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

}  // namespace

const std::vector<Reporter>& reporter_table() {
  static const std::vector<Reporter> kTable = {
      {.name = "html",
       .description = "one self-contained page: checks, systems, SVG plots, every metric and parameter",
       .extension = ".html",
       .render = &html_for_run,
       .render_page = &render_html_report,
       .page_noun = "page"},
      {.name = "md",
       .description = "the page's tables in Markdown, no plots (a wiki, a merge request, a job summary)",
       .extension = ".md",
       .render = &markdown_for_run,
       .render_page = &render_markdown_report,
       .page_noun = "markdown",
       .render_comparison = &comparison_to_markdown,
       .alias = "markdown"},
      {.name = "json",
       .description = "the canonical report: every figure in base units (docs/report-reference.md)",
       .extension = ".json",
       .render = &render_json_report,
       .render_comparison = &json_for_comparison},
      {.name = "console",
       .description = "the summary a person reads: headline figures, checks, verdict",
       .extension = ".txt",
       .render = &console_for_run,
       .render_comparison = &console_for_comparison},
      {.name = "junit",
       .description = "JUnit XML for CI: a test case per phase and per check",
       .extension = ".xml",
       .render = &junit_for_run,
       .compare_option = "--junit",
       .render_for_compare_option = &junit_for_comparison},
      {.name = "openmetrics",
       .description = "OpenMetrics text: each headline figure and check as a gauge with the run's labels "
                      "(node_exporter's textfile collector, the Pushgateway)",
       .extension = ".prom",
       .render = &openmetrics_for_run,
       .render_page = &openmetrics_for_systems,
       .page_noun = "metrics"},
  };
  return kTable;
}

const Reporter* find_reporter(std::string_view name) {
  for (const auto& r : reporter_table()) {
    if (r.name == name || (!r.alias.empty() && r.alias == name)) return &r;
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
