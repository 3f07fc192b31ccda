// Reports of runs whose written data had different reducibility (compressibility, dedup) do not compare:
// the HTML page warns above the checks, the Markdown version and `iofab compare` say so too, and the
// systems table shows each system's setting.
#include <gtest/gtest.h>

#include "reports/compare.h"
#include "reports/html_fixture.h"
#include "reports/html_report.h"
#include "reports/markdown_report.h"
#include "reports/reducibility_check.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

json& phase_named(json& report, const std::string& name) {
  for (json& p : report["phases"]) {
    if (p["name"] == name) return p;
  }
  ADD_FAILURE() << "no phase " << name;
  return report;
}

json with_reducibility(json report, const std::string& phase, double c, double d) {
  phase_named(report, phase)["result"]["details"]["data_reducibility"] = {
      {"reducible", c > 0 || d > 0}, {"compressibility", c}, {"dedup", d}};
  return report;
}

std::vector<SystemReport> systems_of(const std::vector<json>& docs) {
  std::vector<SystemReport> out;
  for (size_t i = 0; i < docs.size(); ++i) {
    SystemReport s;
    s.label = "system-" + std::string(1, static_cast<char>('A' + i));
    Status st = read_report_json(docs[i], s.label + ".json", &s.loaded);
    EXPECT_TRUE(st.ok()) << st.message();
    out.push_back(std::move(s));
  }
  return out;
}

TEST(ReducibilityReport, ThePageWarnsWhenTheSystemsWroteDataOfDifferentReducibility) {
  const auto systems = systems_of(
      {full_report("node-a", 1.0), with_reducibility(full_report("node-b", 1.0), "ingest", 0.5, 0.3)});
  const std::string html = render_html_report(systems);
  const auto warning = html.find("<section id=\"reducibility-warning\"");
  ASSERT_NE(warning, std::string::npos);
  EXPECT_LT(warning, html.find("<section id=\"checks\">")) << "the warning comes before the checks";
  EXPECT_NE(html.find("phase ingest: the written data&#39;s reducibility differs (system-A: none; system-B: "
                      "compressibility 0.5, dedup 0.3)"),
            std::string::npos)
      << html.substr(warning, 800);
  // Only ingest differs: no line for the other phases.
  EXPECT_EQ(html.find("phase ckpt: the written data"), std::string::npos);
  // The systems table shows each setting, marked as differing.
  EXPECT_NE(html.find("<th>data reducibility</th><td class=\"differs\">none (incompressible, no dedup)</td>"
                      "<td class=\"differs\">ingest: compressibility 0.5, dedup 0.3</td>"),
            std::string::npos);
  const std::string md = render_markdown_report(systems);
  EXPECT_NE(md.find("> **Warning:** phase ingest: the written data's reducibility differs"),
            std::string::npos)
      << md.substr(0, 1200);
}

TEST(ReducibilityReport, TheSameSettingsOnEverySystemGiveNoWarning) {
  for (const auto& docs :
       {std::vector<json>{full_report("node-a", 1.0), full_report("node-b", 0.7)},
        std::vector<json>{with_reducibility(full_report("node-a", 1.0), "ckpt", 0.5, 0),
                          with_reducibility(full_report("node-b", 0.7), "ckpt", 0.5, 0)}}) {
    const auto systems = systems_of(docs);
    EXPECT_TRUE(reducibility_warnings(systems).empty());
    const std::string html = render_html_report(systems);
    EXPECT_EQ(html.find("reducibility-warning"), std::string::npos);
  }
}

TEST(ReducibilityReport, AReportWithoutTheDetailReadsParamsThenNone) {
  PhaseReport p;
  EXPECT_EQ(reducibility_text(p), "none");
  p.params = {{"compressibility", 0.3}, {"dedup", 0}};
  EXPECT_EQ(reducibility_text(p), "compressibility 0.3, dedup 0");
  // The detail wins: it is what the data held (a reused dataset's own spec).
  p.details["data_reducibility"] = {{"compressibility", 0}, {"dedup", 0.5}};
  EXPECT_EQ(reducibility_text(p), "compressibility 0, dedup 0.5");
}

TEST(ReducibilityReport, CompareNotesTheDifference) {
  LoadedReport base, cur;
  ASSERT_TRUE(read_report_json(full_report("node-a", 1.0), "base.json", &base).ok());
  ASSERT_TRUE(
      read_report_json(with_reducibility(full_report("node-a", 1.0), "ingest", 0, 0.5), "cur.json", &cur)
          .ok());
  CompareOptions opts;
  opts.force = true;
  Comparison cmp;
  ASSERT_TRUE(compare_reports(base, cur, opts, &cmp).ok());
  bool noted = false;
  for (const auto& n : cmp.notes) {
    noted = noted || n.find(
                         "phase ingest: the written data's reducibility differs (baseline: none; current: "
                         "compressibility 0, dedup 0.5)") != std::string::npos;
  }
  EXPECT_TRUE(noted);
}

}  // namespace
}  // namespace iofab::testing
