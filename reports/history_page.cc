#include "reports/history_page.h"

#include <sstream>

#include "harness/core/build_info.h"
#include "harness/core/number_text.h"
#include "reports/console_report.h"
#include "reports/escape.h"
#include "reports/page_style.h"
#include "reports/svg_plot.h"

namespace iofab {

namespace {

constexpr int kValueColor = 0;       // blue
constexpr int kBandColor = 7;        // grey
constexpr int kRegressionColor = 3;  // vermilion

std::string anchor(const HistoryMetric& m) {
  std::string out = "metric-";
  for (char c : m.phase + "-" + m.metric) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    out += plain ? c : '-';
  }
  return out;
}

std::string chart(const HistoryMetric& m) {
  LineChart c;
  c.title = m.phase + " / " + m.metric;
  c.x.label = "report, oldest first";
  c.x.unit = "count";
  c.y.label = m.metric;
  c.y.unit = m.unit;
  auto series = [](std::string name, int color, bool dashed, bool markers_only) {
    LineSeries s;
    s.name = std::move(name);
    s.color = color;
    s.dashed = dashed;
    s.markers_only = markers_only;
    return s;
  };
  LineSeries value = series(m.metric, kValueColor, false, false);
  LineSeries high = series("noise band, high side", kBandColor, true, false);
  LineSeries low = series("noise band, low side", kBandColor, true, false);
  LineSeries regressed = series("regression compare flags", kRegressionColor, false, true);
  for (size_t i = 0; i < m.points.size(); ++i) {
    const HistoryPoint& p = m.points[i];
    const double x = static_cast<double>(i + 1);
    if (p.value) value.points.emplace_back(x, *p.value);
    if (p.band_high) high.points.emplace_back(x, *p.band_high);
    if (p.band_low) low.points.emplace_back(x, *p.band_low);
    if (p.value && p.verdict == MetricVerdict::kRegressed) regressed.points.emplace_back(x, *p.value);
  }
  c.series = {value, high, low};
  if (!regressed.points.empty()) c.series.push_back(regressed);
  return render_svg(c);
}

std::string cell(const HistoryMetric& m, const HistoryPoint& p, std::string* cls) {
  if (!p.value) return "-";
  std::string text = format_metric_value(*p.value, m.unit);
  if (p.verdict == MetricVerdict::kRegressed) {
    *cls = "fail";
    text = "REGRESSED " + text;
  }
  return text;
}

void write_table(const History& h, std::ostringstream& o) {
  const size_t n = h.runs.size();
  const size_t first = n > h.last ? n - h.last : 0;
  o << "<section id=\"last\">\n<h2>The last " << (n - first) << " reports</h2>\n";
  o << "<table id=\"last-table\">\n<thead><tr><th>#</th><th>start time</th><th>commit</th><th>run</th>"
       "<th>verdict</th>";
  for (const auto& m : h.metrics) o << "<th>" << xml_escape(m.phase + " / " + m.metric) << "</th>";
  o << "</tr></thead>\n<tbody>\n";
  for (size_t i = n; i-- > first;) {
    const HistoryRun& r = h.runs[i];
    o << "<tr><th>" << (i + 1) << "</th><td>" << xml_escape(r.start_time) << "</td><td>"
      << xml_escape(r.git_sha.substr(0, 12)) << "</td><td title=\"" << xml_escape(r.source) << "\">"
      << xml_escape(r.id) << "</td><td class=\"" << (r.verdict == "passed" ? "pass" : "fail") << "\">"
      << xml_escape(r.verdict) << "</td>";
    for (const auto& m : h.metrics) {
      std::string cls;
      const std::string text = cell(m, m.points[i], &cls);
      o << "<td" << (cls.empty() ? "" : " class=\"" + cls + "\"") << " title=\""
        << xml_escape(m.points[i].reason) << "\">" << xml_escape(text) << "</td>";
    }
    o << "</tr>\n";
  }
  o << "</tbody></table>\n</section>\n";
}

}  // namespace

std::string render_history_page(const History& h) {
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  // Nothing may be fetched when the page is viewed: no scripts, fonts, images or frames.
  o << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
       "'unsafe-inline'; "
       "img-src data:\">\n";
  o << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  o << "<title>iofab history: " << xml_escape(h.suite) << "</title>\n<style>" << kPageStyle
    << "</style>\n</head>\n<body>\n";
  o << "<header>\n<h1>iofab history: " << xml_escape(h.suite) << "</h1>\n<p class=\"lead\">" << h.runs.size()
    << " report" << (h.runs.size() == 1 ? "" : "s");
  if (!h.runs.empty()) {
    o << ", " << xml_escape(h.runs.front().start_time) << " to " << xml_escape(h.runs.back().start_time);
  }
  const size_t regressions = h.regressions();
  o << ". <b>" << regressions << " regression" << (regressions == 1 ? "" : "s")
    << "</b> flagged. Each report is compared with the one before it as <code>iofab compare --tolerance "
    << number_text("%g", h.tolerance * 100) << "%</code> would: the dashed lines are the band it lets "
    << "through (the previous value plus or minus the larger of the tolerance and the runs' noise), a ringed "
       "point is a regression it flags.</p>\n</header>\n";
  if (regressions > 0) {
    o << "<section id=\"regressions\">\n<h2>Regressions</h2>\n<ul class=\"regressions\">";
    for (const auto& m : h.metrics) {
      for (size_t i = 0; i < m.points.size(); ++i) {
        if (m.points[i].verdict != MetricVerdict::kRegressed) continue;
        o << "<li>report " << (i + 1) << " (" << xml_escape(h.runs[i].start_time) << ", "
          << xml_escape(h.runs[i].id) << "): <a href=\"#" << anchor(m) << "\">" << xml_escape(m.phase)
          << " / " << xml_escape(m.metric) << "</a>: " << xml_escape(m.points[i].reason) << "</li>";
      }
    }
    o << "</ul>\n</section>\n";
  }
  o << "<section id=\"plots\">\n<h2>Headline metrics over the series</h2>\n";
  for (const auto& m : h.metrics) {
    o << "<figure id=\"" << anchor(m) << "\">" << chart(m) << "</figure>\n";
  }
  o << "</section>\n";
  write_table(h, o);
  if (!h.notes.empty()) {
    o << "<section id=\"notes\">\n<h2>Notes</h2>\n<ul class=\"notes\">";
    for (const auto& n : h.notes) o << "<li>" << xml_escape(n) << "</li>";
    o << "</ul>\n</section>\n";
  }
  o << "<footer>Generated by iofab " << xml_escape(build_info().version) << " from the JSON reports alone; "
    << "self-contained: nothing on this page is fetched.</footer>\n</body>\n</html>\n";
  return o.str();
}

}  // namespace iofab
