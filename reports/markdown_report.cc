#include "reports/markdown_report.h"

#include <sstream>

#include "reports/escape.h"

namespace iofab {

namespace {

std::string cell_text(const Cell& c) {
  const std::string t = markdown_escape(c.text);
  if (t.empty()) return t;  // "**" around nothing would be literal asterisks
  switch (c.kind) {
    case Cell::Kind::kFail:
      return "**" + t + "**";
    case Cell::Kind::kDiffers:
      return "*" + t + "*";
    default:
      return t;
  }
}

void write_table(const Table& t, const std::string& heading, std::ostringstream& o) {
  o << heading << " " << markdown_escape(t.title) << "\n\n";
  if (!t.note.empty()) o << markdown_escape(t.note) << "\n\n";
  if (t.rows.empty()) return;
  o << "|";
  for (const auto& h : t.head) o << " " << markdown_escape(h) << " |";
  o << "\n|";
  for (size_t i = 0; i < t.head.size(); ++i) o << "---|";
  o << "\n";
  for (const auto& r : t.rows) {
    o << "|";
    for (const auto& c : r) o << " " << cell_text(c) << " |";
    o << "\n";
  }
  o << "\n";
}

}  // namespace

std::string render_markdown_report(const std::vector<SystemReport>& systems) {
  std::ostringstream o;
  o << "# iofab comparison\n\n";
  o << systems.size() << " report" << (systems.size() == 1 ? "" : "s") << ":";
  for (size_t i = 0; i < systems.size(); ++i) {
    o << (i ? ", " : " ") << "**" << markdown_escape(systems[i].label) << "** ("
      << markdown_escape(systems[i].loaded.source) << ")";
  }
  o << ". **Bold**: a failed check or phase; *italic*: values that differ between the systems.\n\n";
  for (const auto& m : reducibility_warnings(systems)) o << "> **Warning:** " << markdown_escape(m) << "\n\n";
  Table checks = checks_table(systems);
  checks.note = checks.note.empty() ? "The checkpoint budget (the 5% rule) comes first." : checks.note;
  write_table(checks, "##", o);
  Table sys = systems_table(systems);
  sys.note.clear();
  write_table(sys, "##", o);
  o << "## Figures per phase\n\n";
  for (const auto& t : metric_tables(systems)) write_table(t, "###", o);
  o << "## Parameters per phase\n\n";
  for (const auto& t : param_tables(systems)) write_table(t, "###", o);
  bool any = false;
  for (const auto& s : systems) {
    if (s.loaded.report.verdict_reasons.empty() && s.loaded.report.warnings.empty()) continue;
    if (!any) o << "## Reasons and warnings\n\n";
    any = true;
    for (const auto& r : s.loaded.report.verdict_reasons) {
      o << "- " << markdown_escape(s.label) << ": " << markdown_escape(r) << "\n";
    }
    for (const auto& w : s.loaded.report.warnings) {
      o << "- " << markdown_escape(s.label) << ": warning: " << markdown_escape(w) << "\n";
    }
  }
  if (any) o << "\n";
  return o.str();
}

}  // namespace iofab
