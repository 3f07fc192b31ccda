// The history page's data (reports/history.h): one suite's reports in the order they ran, each headline
// metric over the series, compare's band and verdict for each report against the one before it.
#include "reports/history.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "reports/history_fixture.h"
#include "reports/history_page.h"
#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

LoadedReport loaded(const json& doc, const std::string& source) {
  LoadedReport l;
  Status st = read_report_json(doc, source, &l);
  EXPECT_TRUE(st.ok()) << st.message();
  return l;
}

// The series, handed over out of order (as a shell glob of run ids might list it).
std::vector<LoadedReport> shuffled_series() {
  std::vector<LoadedReport> out;
  for (size_t k : {3, 1, 10, 7, 2, 9, 4, 8, 6, 5}) {
    out.push_back(loaded(history_report(k), "r" + std::to_string(k) + ".json"));
  }
  return out;
}

HistoryOptions options(double tolerance, size_t last) {
  HistoryOptions o;
  o.tolerance = tolerance;
  o.last = last;
  return o;
}

const HistoryMetric* find(const History& h, const std::string& phase, const std::string& metric) {
  for (const auto& m : h.metrics) {
    if (m.phase == phase && m.metric == metric) return &m;
  }
  return nullptr;
}

TEST(History, OrdersByStartTimeAndFlagsTheRegressionCompareWould) {
  History h;
  ASSERT_TRUE(build_history(shuffled_series(), HistoryOptions{}, &h).ok());
  ASSERT_EQ(h.runs.size(), kHistoryRuns);
  for (size_t i = 0; i < kHistoryRuns; ++i) EXPECT_EQ(h.runs[i].id, "nightly-" + std::to_string(i + 1));
  EXPECT_EQ(h.suite, "nightly");
  EXPECT_EQ(h.runs[0].git_sha, "c0ffee1001");

  const HistoryMetric* bw = find(h, "ingest", "write_bytes_per_s");
  ASSERT_NE(bw, nullptr);
  EXPECT_EQ(bw->unit, "bytes/s");
  ASSERT_EQ(bw->points.size(), kHistoryRuns);
  EXPECT_FALSE(bw->points[0].band_low.has_value());  // nothing before the first
  for (size_t i = 0; i < kHistoryRuns; ++i) {
    SCOPED_TRACE(i + 1);
    EXPECT_EQ(bw->points[i].verdict == MetricVerdict::kRegressed, i + 1 == kHistoryRegressedRun);
  }
  // The band is the previous value +- the tolerance (no repeats: no noise term).
  const HistoryPoint& reg = bw->points[kHistoryRegressedRun - 1];
  const double prev = *bw->points[kHistoryRegressedRun - 2].value;
  ASSERT_TRUE(reg.band_low && reg.band_high);
  EXPECT_DOUBLE_EQ(*reg.band_low, prev * 0.95);
  EXPECT_DOUBLE_EQ(*reg.band_high, prev * 1.05);
  EXPECT_LT(*reg.value, *reg.band_low);
  EXPECT_FALSE(reg.reason.empty());
  // The steady metrics never regress: one regression in all.
  ASSERT_NE(find(h, "train", "read_bytes_per_s"), nullptr);
  EXPECT_EQ(h.regressions(), 1u);

  // A wider tolerance lets the drop through.
  History wide;
  ASSERT_TRUE(build_history(shuffled_series(), options(0.5, 10), &wide).ok());
  EXPECT_EQ(wide.regressions(), 0u);
}

TEST(History, ReportsOfAnotherSuiteAreRefusedNamingBoth) {
  std::vector<LoadedReport> series = shuffled_series();
  json other = history_report(11);
  other["run"]["suite"]["name"] = "weekly";
  series.push_back(loaded(other, "weekly.json"));
  History h;
  Status st = build_history(std::move(series), HistoryOptions{}, &h);
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(st.message().find("weekly.json ran \"weekly\""), std::string::npos) << st.message();
  EXPECT_FALSE(build_history({}, HistoryOptions{}, &h).ok());
}

TEST(History, ThePageMarksTheRegressionAndTablesTheLastRuns) {
  History h;
  ASSERT_TRUE(build_history(shuffled_series(), options(0.05, 4), &h).ok());
  const std::string page = render_history_page(h);
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_TRUE(contains(page, "<b>1 regression</b> flagged")) << page.substr(0, 2000);
  // One plot per headline metric, the regression as a ringed point on one of them.
  size_t svgs = 0;
  for (auto p = page.find("<svg"); p != std::string::npos; p = page.find("<svg", p + 1)) ++svgs;
  EXPECT_EQ(svgs, h.metrics.size());
  size_t rings = 0;
  for (auto p = page.find("r=\"7\" fill=\"none\""); p != std::string::npos;
       p = page.find("r=\"7\" fill", p + 1)) {
    ++rings;
  }
  EXPECT_EQ(rings, 1u);
  EXPECT_TRUE(contains(page, "report 7 (2026-11-07T02:00:00Z, nightly-7)")) << page;
  // The table: the last 4, newest first.
  EXPECT_TRUE(contains(page, "<h2>The last 4 reports</h2>"));
  EXPECT_TRUE(contains(page, "<tr><th>10</th>"));
  EXPECT_TRUE(contains(page, "<tr><th>7</th>"));
  EXPECT_FALSE(contains(page, "<tr><th>6</th>"));
  EXPECT_LT(page.find("<tr><th>10</th>"), page.find("<tr><th>7</th>"));
  EXPECT_TRUE(contains(page, ">REGRESSED ")) << "the regressed cell";
}

}  // namespace
}  // namespace iofab::testing
