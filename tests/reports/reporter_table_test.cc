// The reporter table is the one list of output formats: every row renders a
// sample report (and, where its row says so, a page of several and a
// comparison); `iofab report --format` takes exactly the table's page
// formats; docs/reports.md lists exactly the table's rows; output paths
// pick formats by extension as they always have.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "driver/cli/report_commands.h"
#include "reports/html_fixture.h"
#include "reports/json_report.h"
#include "reports/junit_report.h"
#include "reports/report_fixtures.h"
#include "reports/reporter.h"
#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

SystemReport system_of(const json& doc, const std::string& label) {
  SystemReport s;
  s.label = label;
  Status st = read_report_json(doc, label + ".json", &s.loaded);
  EXPECT_TRUE(st.ok()) << st.message();
  return s;
}

TEST(ReporterTable, EveryRowRendersASampleReport) {
  const std::vector<SystemReport> systems = {system_of(full_report("node-a", 1.0), "a"),
                                             system_of(full_report("node-b", 0.7), "b")};
  const Report& report = systems[0].loaded.report;
  Comparison cmp;
  ASSERT_TRUE(compare_reports(systems[0].loaded, systems[1].loaded, CompareOptions{}, &cmp).ok());
  std::set<std::string_view> names, extensions;
  for (const Reporter& r : reporter_table()) {
    SCOPED_TRACE(std::string(r.name));
    EXPECT_TRUE(names.insert(r.name).second) << "two rows named so";
    EXPECT_TRUE(extensions.insert(r.extension).second) << "two rows with one extension";
    EXPECT_EQ(r.extension.rfind('.', 0), 0u);
    EXPECT_FALSE(r.description.empty());
    EXPECT_EQ(find_reporter(r.name), &r);
    ASSERT_NE(r.render, nullptr);
    const std::string text = r.render(report);
    EXPECT_NE(text.find("ingest"), std::string::npos) << text.substr(0, 400);
    if (r.render_page != nullptr) {
      EXPECT_FALSE(r.page_noun.empty());
      const std::string page = r.render_page(systems);
      EXPECT_NE(page.find("node-b"), std::string::npos);
    }
    if (r.render_comparison != nullptr) {
      EXPECT_NE(r.render_comparison(cmp).find("restore"), std::string::npos);
    }
  }
  // Each format is the one it says it is.
  EXPECT_EQ(find_reporter("json")->render(report), render_json_report(report));
  EXPECT_EQ(json::parse(find_reporter("json")->render(report)), report_to_json(report));
  EXPECT_EQ(find_reporter("html")->render(report).rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(find_reporter("junit")->render(report).rfind("<?xml", 0), 0u);
  EXPECT_EQ(find_reporter("none"), nullptr);
}

TEST(ReporterTable, OutputPathsPickFormatsByExtension) {
  EXPECT_EQ(page_reporter_for("bakeoff.md").name, "md");
  EXPECT_EQ(page_reporter_for("bakeoff.html").name, "html");
  EXPECT_EQ(page_reporter_for("-").name, "html");
  EXPECT_EQ(page_reporter_for("page.json").name, "html");  // json is no page format
  EXPECT_EQ(comparison_reporter_for("cmp.json").name, "json");
  EXPECT_EQ(comparison_reporter_for("cmp.md").name, "md");
  EXPECT_EQ(comparison_reporter_for("cmp.txt").name, "console");
  EXPECT_EQ(comparison_reporter_for("cmp.xml").name, "console");  // JUnit is --junit's
  EXPECT_EQ(comparison_reporter_for("cmp").name, "console");
}

TEST(ReporterTable, TheCliOffersTheTablesPageFormats) {
  std::vector<std::string> pages;
  for (const Reporter* r : page_reporters()) pages.emplace_back(r->name);
  EXPECT_EQ(report_format_choices(), pages);
  EXPECT_EQ(names_as_choices(page_reporters()), "html, md or openmetrics");
  EXPECT_EQ(report_format_help(), "html, md or openmetrics (default: from -o's extension, else html)");

  CommandResult help = run_iofab({"report", "--help"});
  EXPECT_EQ(help.exit_code, 0) << help.err;
  EXPECT_NE(help.out.find(report_format_help()), std::string::npos) << help.out;
  // CLI11 lists the choices it checks against when one is refused.
  CommandResult bad = run_iofab({"report", "a.json", "-o", "-", "--format", "pdf"});
  EXPECT_EQ(bad.exit_code, 2);
  std::string listed;
  for (const auto& p : pages) listed += (listed.empty() ? "" : ",") + p;
  EXPECT_NE(bad.err.find("{" + listed + "}"), std::string::npos) << bad.err;
  // The command itself (as tests and scripts call it) refuses a non-page format with the same list.
  std::ostringstream out, err;
  ReportArgs args;
  args.inputs = {"a.json"};
  args.out = "-";
  args.format = "json";
  EXPECT_EQ(cmd_report(args, out, err), 2);
  EXPECT_EQ(err.str(), "iofab report: --format: expected html, md or openmetrics, got \"json\"\n");
}

TEST(ReporterTable, CompareJunitIsTheJunitRow) {
  const std::vector<SystemReport> systems = {system_of(full_report("node-a", 1.0), "a"),
                                             system_of(full_report("node-b", 0.7), "b")};
  Comparison cmp;
  ASSERT_TRUE(compare_reports(systems[0].loaded, systems[1].loaded, CompareOptions{}, &cmp).ok());
  std::vector<std::string_view> options;
  for (const Reporter& r : reporter_table()) {
    if (r.compare_option.empty()) continue;
    options.push_back(r.compare_option);
    EXPECT_NE(r.render_for_compare_option, nullptr) << r.name;
  }
  EXPECT_EQ(options, std::vector<std::string_view>{"--junit"});
  const Reporter* junit = find_reporter("junit");
  ASSERT_NE(junit, nullptr);
  EXPECT_EQ(junit->compare_option, "--junit");
  // The row writes what junit_for_compare writes with the current report at hand: its time and host.
  EXPECT_EQ(junit->render_for_compare_option(cmp), junit_for_compare(cmp, systems[1].loaded.report));
  EXPECT_NE(junit->render_for_compare_option(cmp).find("hostname=\"node-b\""), std::string::npos);
}

std::string docs_table() {
  std::string out =
      "| format | extension | what | `report --format` | `compare --out` |\n|---|---|---|---|---|\n";
  for (const Reporter& r : reporter_table()) {
    out += "| `" + std::string(r.name) + "` | `" + std::string(r.extension) + "` | " +
           std::string(r.description) + " | " + (r.render_page != nullptr ? "yes" : "") + " | " +
           (r.render_comparison != nullptr ? "yes" : "") + " |\n";
  }
  return out;
}

TEST(ReporterTable, TheDocsListEveryFormat) {
  const std::string doc = read_file(std::string(IOFAB_SOURCE_DIR) + "/docs/reports.md");
  const std::string marker = "<!-- reporter table:";
  const auto at = doc.find(marker);
  ASSERT_NE(at, std::string::npos) << "docs/reports.md has no reporter table";
  const auto begin = doc.find('\n', at) + 1;
  const auto end = doc.find("\n\n", begin);
  EXPECT_EQ(doc.substr(begin, end - begin + 1), docs_table())
      << "docs/reports.md's table differs from reports/reporter_table.cc; the expected text is above";
}

}  // namespace
}  // namespace iofab::testing
