// Issue 42 item 11: extreme values in reports read back. A negative duration or rate, or a run whose
// duration is negative, is refused when the report is read, naming the file and the field (exit 2 in
// `report --history`); figures at the ends of a double's range (1e308) never print inf or nan on the
// history page, its plots included.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "reports/history.h"
#include "reports/history_fixture.h"
#include "reports/history_page.h"
#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

std::string refusal(const json& doc, const std::string& source) {
  LoadedReport l;
  const Status st = read_report_json(doc, source, &l);
  EXPECT_FALSE(st.ok()) << source << " was read";
  return st.message();
}

TEST(ReportExtremes, ANegativeRateOrDurationIsRefusedNamingTheFileAndTheField) {
  json rate = history_report(1);
  rate["phases"][0]["result"]["metrics"]["write_bytes_per_s"] = -1e308;
  std::string m = refusal(rate, "neg-rate.json");
  EXPECT_TRUE(contains(m, "neg-rate.json: ")) << m;
  EXPECT_TRUE(contains(m, "phases[0].result.metrics[\"write_bytes_per_s\"]: expected a rate >= 0")) << m;

  json secs = history_report(1);
  secs["phases"][2]["result"]["metrics"]["stall_seconds_max"] = -2;
  secs["phases"][2]["result"]["details"]["units"]["stall_seconds_max"] = "s";  // as the checkpoint writes it
  m = refusal(secs, "neg-secs.json");
  EXPECT_TRUE(contains(m, "phases[2].result.metrics[\"stall_seconds_max\"]: expected a duration >= 0")) << m;

  json run = history_report(1);
  run["run"]["duration_s"] = -3600;
  m = refusal(run, "neg-run.json");
  EXPECT_TRUE(contains(m, "run.duration_s: expected a duration >= 0")) << m;
}

TEST(ReportExtremes, ANegativeFigureOfAUnitThatMayBeNegativeIsStillRead) {
  json doc = history_report(1);
  doc["phases"][2]["result"]["metrics"]["budget_margin"] = -0.5;  // a ratio: below 0 is over budget
  LoadedReport l;
  const Status st = read_report_json(doc, "margin.json", &l);
  EXPECT_TRUE(st.ok()) << st.message();
}

// Whole words only: "information" is not "inf".
bool prints_inf_or_nan(const std::string& page) {
  static const std::regex kBad("(^|[^A-Za-z])[-+]?(inf|nan|INF|NAN|Inf|NaN)([^A-Za-z]|$)");
  return std::regex_search(page, kBad);
}

TEST(ReportExtremes, FiguresAtTheEndsOfTheRangeNeverPrintInfOrNan) {
  std::vector<LoadedReport> series;
  for (size_t k = 1; k <= 4; ++k) {
    json doc = history_report(k);
    auto& ingest = doc["phases"][0]["result"];
    ingest["metrics"]["write_bytes_per_s"] = k % 2 == 0 ? 1e308 : 0.0;  // 0 then 1e308: a change from 0
    ingest["metrics"]["margin"] = k % 2 == 0 ? 1e308 : -1e308;          // a ratio spanning 2e308
    ingest["details"]["units"]["margin"] = "ratio";
    ingest["details"]["better"]["margin"] = "higher";
    ingest["details"]["headline"] = {"write_bytes_per_s", "margin"};
    doc["run"]["duration_s"] = 1e308;
    LoadedReport l;
    const Status st = read_report_json(doc, "r" + std::to_string(k) + ".json", &l);
    ASSERT_TRUE(st.ok()) << st.message();
    series.push_back(std::move(l));
  }
  History h;
  ASSERT_TRUE(build_history(std::move(series), HistoryOptions{}, &h).ok());
  const std::string page = render_history_page(h);
  std::smatch where;
  static const std::regex kBad("(^|[^A-Za-z])[-+]?(inf|nan|INF|NAN|Inf|NaN)([^A-Za-z]|$)");
  if (std::regex_search(page, where, kBad)) {
    const size_t at = static_cast<size_t>(where.position(0));
    ADD_FAILURE() << "the page prints inf or nan: ..." << page.substr(at > 200 ? at - 200 : 0, 300) << "...";
  }
  EXPECT_TRUE(prints_inf_or_nan("x -nan y"));  // the check itself catches what it must
  EXPECT_TRUE(prints_inf_or_nan(">+inf%<"));
}

TEST(ReportExtremes, HistoryExitsTwoNamingTheFileAndTheField) {
  TempDir dir("/dev/shm");
  json bad = history_report(2);
  bad["run"]["duration_s"] = -1;
  write_file(dir.path() + "/a.json", history_report(1).dump());
  write_file(dir.path() + "/b.json", bad.dump());
  const CommandResult r = run_iofab(
      {"report", "--history", dir.path() + "/a.json", dir.path() + "/b.json", "-o", dir.path() + "/h.html"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, dir.path() + "/b.json: ")) << r.err;
  EXPECT_TRUE(contains(r.err, "run.duration_s")) << r.err;
  EXPECT_EQ(list_files(dir.path()).size(), 2u) << "the page was written";
}

}  // namespace
}  // namespace iofab::testing
