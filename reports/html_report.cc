#include "reports/html_report.h"

#include <sstream>

#include "harness/core/build_info.h"
#include "reports/escape.h"
#include "reports/page_style.h"
#include "reports/report_plots.h"

namespace iofab {

namespace {

const char* cell_class(Cell::Kind k) {
  switch (k) {
    case Cell::Kind::kPass:
      return "pass";
    case Cell::Kind::kFail:
      return "fail";
    case Cell::Kind::kAbsent:
      return "absent";
    case Cell::Kind::kDiffers:
      return "differs";
    default:
      return "";
  }
}

void write_table(const Table& t, std::ostringstream& o) {
  if (!t.note.empty()) o << "<p class=\"note\">" << xml_escape(t.note) << "</p>\n";
  if (t.rows.empty()) return;
  o << "<table id=\"" << xml_escape(t.id) << "-table\">\n<thead><tr>";
  for (const auto& h : t.head) o << "<th>" << xml_escape(h) << "</th>";
  o << "</tr></thead>\n<tbody>\n";
  for (const auto& r : t.rows) {
    o << "<tr>";
    for (size_t i = 0; i < r.size(); ++i) {
      const char* cls = cell_class(r[i].kind);
      o << (i == 0 ? "<th" : "<td");
      if (*cls != '\0') o << " class=\"" << cls << "\"";
      o << ">" << xml_escape(r[i].text) << (i == 0 ? "</th>" : "</td>");
    }
    o << "</tr>\n";
  }
  o << "</tbody></table>\n";
}

void write_head(const std::vector<SystemReport>& systems, const std::string& labels,
                const std::vector<PlotSection>& plots, std::ostringstream& o) {
  o << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  // Nothing may be fetched when the page is viewed: no scripts, fonts, images or frames.
  o << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
       "'unsafe-inline'; "
       "img-src data:\">\n";
  o << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  o << "<title>iofab comparison: " << xml_escape(labels) << "</title>\n<style>" << kPageStyle
    << "</style>\n</head>\n<body>\n";
  o << "<header>\n<h1>iofab comparison</h1>\n<p class=\"lead\">" << systems.size() << " report"
    << (systems.size() == 1 ? "" : "s") << ": <b>" << xml_escape(labels)
    << "</b>. Can this storage and this fabric keep the GPUs busy? Checks first (the checkpoint budget, the "
       "5% "
       "rule, at the top), then who ran what where, then the plots.</p>\n";
  o << "<nav><a href=\"#checks\">Checks</a><a href=\"#systems\">Systems</a>";
  for (const auto& p : plots)
    o << "<a href=\"#" << xml_escape(p.id) << "\">" << xml_escape(p.heading) << "</a>";
  o << "<a href=\"#phases\">Per phase</a></nav>\n</header>\n";
}

// Before the checks: a pass on reducible data against a fail on incompressible data is no comparison.
void write_reducibility_warning(const std::vector<SystemReport>& systems, std::ostringstream& o) {
  const auto mismatches = reducibility_warnings(systems);
  if (mismatches.empty()) return;
  o << "<section id=\"reducibility-warning\" class=\"warning\">\n<h2>Warning: the systems wrote data of "
       "different reducibility</h2>\n<ul>";
  for (const auto& m : mismatches) o << "<li>" << xml_escape(m) << "</li>";
  o << "</ul>\n<p class=\"explain\">Rerun with the same compressibility and dedup on every system "
       "(docs/data-reducibility.md).</p>\n</section>\n";
}

void write_plot(const PlotSection& p, std::ostringstream& o) {
  o << "<section id=\"" << xml_escape(p.id) << "\" class=\"plot\">\n<h2>" << xml_escape(p.heading)
    << "</h2>\n";
  o << "<p class=\"explain\">" << xml_escape(p.explanation) << "</p>\n";
  for (const auto& svg : p.svgs) o << "<figure>" << svg << "</figure>\n";
  if (!p.notes.empty()) {
    o << "<ul class=\"notes\">";
    for (const auto& n : p.notes) o << "<li>" << xml_escape(n) << "</li>";
    o << "</ul>\n";
  }
  o << "</section>\n";
}

void write_per_phase(const std::vector<SystemReport>& systems, std::ostringstream& o) {
  o << "<section id=\"phases\">\n<h2>Per phase</h2>\n<p class=\"explain\">Every metric and every parameter, "
       "per "
       "system; parameters that differ are marked.</p>\n";
  const auto metrics = metric_tables(systems);
  const auto params = param_tables(systems);
  for (size_t i = 0; i < metrics.size(); ++i) {
    o << "<details id=\"" << xml_escape(metrics[i].id) << "\"><summary>" << xml_escape(metrics[i].title)
      << "</summary>\n<h3>Metrics</h3>\n";
    write_table(metrics[i], o);
    if (i < params.size()) {
      o << "<h3>Parameters</h3>\n";
      write_table(params[i], o);
    }
    o << "</details>\n";
  }
  o << "</section>\n";
}

// Each system's verdict reasons and warnings, run-wide and per phase; nothing when none has any.
void write_warnings(const std::vector<SystemReport>& systems, std::ostringstream& o) {
  bool any = false;
  for (const auto& s : systems) {
    const Report& r = s.loaded.report;
    std::vector<std::string> lines;
    for (const auto& reason : r.verdict_reasons) lines.push_back(reason);
    for (const auto& w : r.warnings) lines.push_back("warning: " + w);
    for (const auto& p : r.phases) {
      for (const auto& w : p.warnings) lines.push_back(p.name + ": warning: " + w);
    }
    if (lines.empty()) continue;
    if (!any) o << "<section id=\"warnings\">\n<h2>Reasons and warnings</h2>\n";
    any = true;
    o << "<h3>" << xml_escape(s.label) << "</h3>\n<ul>";
    for (const auto& l : lines) o << "<li>" << xml_escape(l) << "</li>";
    o << "</ul>\n";
  }
  if (any) o << "</section>\n";
}

}  // namespace

std::string render_html_report(const std::vector<SystemReport>& systems) {
  std::string labels;
  for (const auto& s : systems) labels += (labels.empty() ? "" : ", ") + s.label;
  const auto plots = build_plots(systems);
  std::ostringstream o;
  write_head(systems, labels, plots, o);
  write_reducibility_warning(systems, o);
  o << "<section id=\"checks\">\n<h2>Checks</h2>\n";
  write_table(checks_table(systems), o);
  o << "</section>\n";
  o << "<section id=\"systems\">\n<h2>Systems</h2>\n";
  write_table(systems_table(systems), o);
  o << "</section>\n";
  for (const auto& p : plots) write_plot(p, o);
  write_per_phase(systems, o);
  write_warnings(systems, o);
  o << "<footer>Generated by iofab " << xml_escape(build_info().version) << " from the JSON reports alone; "
    << "self-contained: nothing on this page is fetched.</footer>\n</body>\n</html>\n";
  return o.str();
}

}  // namespace iofab
