// The comparison page's structure: one <svg> per plot with data, notes for
// plots without, everything from the reports escaped, nothing fetched; the
// Markdown version's tables; the SVG module's axes; the plots byte for byte
// against golden files.
#include "reports/html_report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <regex>

#include "harness/stats/histogram.h"
#include "harness/stats/time_series.h"
#include "reports/html_fixture.h"
#include "reports/markdown_report.h"
#include "reports/report_fixtures.h"
#include "reports/report_plots.h"
#include "reports/svg_plot.h"
#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + what.size())) ++n;
  return n;
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

TEST(HtmlReport, OneSvgPerPlotWithData) {
  const auto systems = systems_of({full_report("node-a", 1.0), full_report("node-b", 0.7)});
  const std::string html = render_html_report(systems);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(count(html, "<svg"), kFullReportPlots) << html.substr(0, 2000);
  EXPECT_EQ(count(html, "<svg"), count(html, "</svg>"));
  for (const char* title :
       {"Bandwidth per phase", "Sample read latency CDF: train", "Checkpoint stall: ckpt", "Restore time",
        "Bandwidth over time: ingest", "busbw vs message size: all_reduce (coll)",
        "busbw vs message size: all_gather (coll)", "Step time breakdown: coll"}) {
    EXPECT_NE(html.find(std::string("<title>") + title), std::string::npos) << title;
  }
  EXPECT_EQ(count(html, "No data:"), 0u) << "every plot has data here";
  // Both systems appear in legends, and the hosts are told apart.
  EXPECT_NE(html.find(">system-A</text>"), std::string::npos);
  EXPECT_NE(html.find(">system-B</text>"), std::string::npos);
  EXPECT_NE(html.find("node-a"), std::string::npos);
  EXPECT_NE(html.find("node-b"), std::string::npos);
  // The message-size axis is logarithmic with sizes as labels.
  EXPECT_NE(html.find(">1 MiB</text>"), std::string::npos);
  // The allowed stall is drawn once: both reports share it.
  EXPECT_NE(html.find(">allowed stall: 180 s</text>"), std::string::npos);
}

TEST(HtmlReport, ChecksTableHasTheBudgetFirst) {
  const auto systems = systems_of({full_report("node-a", 1.0), full_report("node-b", 0.7)});
  const std::string html = render_html_report(systems);
  const auto table = html.find("<table id=\"checks-table\">");
  ASSERT_NE(table, std::string::npos);
  const auto budget = html.find("budget_margin &gt;= 1", table);
  const auto bw = html.find("ingest bandwidth", table);
  ASSERT_NE(budget, std::string::npos);
  ASSERT_NE(bw, std::string::npos);
  EXPECT_LT(budget, bw);
  EXPECT_NE(html.find("<td class=\"fail\">FAIL: 700 MB/s</td>", table), std::string::npos)
      << html.substr(table, 3000);
  EXPECT_NE(html.find("<td class=\"pass\">pass: 1.00 GB/s</td>", table), std::string::npos);
}

TEST(HtmlReport, HostileTextIsEscapedAndNothingIsFetched) {
  json hostile = full_report("<script>alert(1)</script>", 1.0);
  hostile["phases"][0]["name"] = "in\"gest<img src=http://evil.example/x.png>";
  hostile["target"]["path"] = "/mnt/<b>x</b>";
  hostile["warnings"] = json::array({"<iframe src=\"https://evil.example\"></iframe>"});
  const std::string html = render_html_report(systems_of({hostile, full_report("node-b", 0.9)}));
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("<iframe"), std::string::npos);
  EXPECT_EQ(html.find("<b>x"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  // Self-contained: no src or href (in a tag: text holds no raw '<') to anything but an in-page anchor.
  const std::regex external(R"re(<[^>]*\s(src|href)\s*=\s*["']?\s*(https?:|//|file:))re", std::regex::icase);
  EXPECT_FALSE(std::regex_search(html, external));
  const std::regex any_href(R"re(href="([^"]*)")re");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), any_href); it != std::sregex_iterator();
       ++it) {
    EXPECT_EQ((*it)[1].str().rfind('#', 0), 0u) << (*it)[0].str();
  }
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos);
  EXPECT_NE(html.find("Content-Security-Policy"), std::string::npos);
}

TEST(HtmlReport, PlotsWithoutDataAreLeftOutWithANote) {
  // Only an ingest phase: bandwidth and its time series have data, nothing else.
  json only_ingest = make_report(json::array({make_phase("ingest", "ingest", {{"write_bytes_per_s", 1e9}})}));
  TimeSeries ts(100'000'000);
  for (int i = 0; i < 20; ++i) ts.add(static_cast<uint64_t>(i) * 100'000'000, 50'000'000);
  only_ingest["phases"][0]["result"]["details"]["series"] = ts.to_json();
  const std::string html = render_html_report(systems_of({only_ingest}));
  EXPECT_EQ(count(html, "<svg"), 2u);
  for (const char* note :
       {"No data: no report has a train_read phase.", "No data: no report has a checkpoint phase.",
        "No data: no report has a restore phase.", "No data: no report has a collectives sweep",
        "No data: no report has a DDP or FSDP step",
        "No data: no phase in any report has host telemetry (details.telemetry)."}) {
    EXPECT_NE(html.find(note), std::string::npos) << note;
  }
}

TEST(HtmlReport, MalformedDetailsCostOnlyTheirPlot) {
  json doc = full_report("node-a", 1.0);
  for (auto& p : doc["phases"]) {
    if (p["kind"] == "train_read") p["result"]["details"]["sample_latency_histogram"] = {{"count", "many"}};
    if (p["kind"] == "ingest") p["result"]["details"]["series"] = {{"interval_ns", 0}, {"bytes", {1, 2}}};
    if (p["kind"] == "checkpoint") p["result"]["details"]["checkpoints"] = "three";
  }
  const std::string html = render_html_report(systems_of({doc}));
  EXPECT_NE(html.find("the latency histogram is malformed, left out"), std::string::npos);
  EXPECT_NE(html.find("details.series is malformed, left out"), std::string::npos);
  // The checkpoint plot falls back on the phase's summary stalls.
  EXPECT_NE(html.find("no per-checkpoint details in any report"), std::string::npos);
  EXPECT_EQ(count(html, "<svg"), kFullReportPlots - 2);  // the CDF and the ingest series are gone
}

TEST(MarkdownReport, TablesOnlyAndEscaped) {
  json a = full_report("node|a", 1.0);
  const std::string md = render_markdown_report(systems_of({a, full_report("node-b", 0.7)}));
  EXPECT_EQ(md.find("<svg"), std::string::npos);
  EXPECT_NE(md.find("## Checks"), std::string::npos);
  EXPECT_NE(md.find("| phase | check | system-A | system-B |\n|---|---|---|---|"), std::string::npos) << md;
  EXPECT_NE(md.find("node\\|a"), std::string::npos);
  EXPECT_NE(md.find("**FAIL: 700 MB/s**"), std::string::npos) << md;
  const auto budget = md.find("budget\\_margin &gt;= 1");
  ASSERT_NE(budget, std::string::npos) << md;
  EXPECT_LT(budget, md.find("ingest bandwidth"));
  EXPECT_NE(md.find("### ingest"), std::string::npos);
}

TEST(SvgPlot, AxesAreLabelledWithUnits) {
  LineChart c;
  c.title = "t";
  c.x = {"message size", "bytes", true};
  c.y = {"bus bandwidth", "bytes/s", false};
  c.series.push_back({"A", {{1024, 1e9}, {1 << 20, 5e9}, {1 << 30, 2.2e10}}, -1, false});
  const std::string svg = render_svg(c);
  EXPECT_NE(svg.find(">bus bandwidth (GB/s)</text>"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">1 KiB</text>"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">1 GiB</text>"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">message size</text>"), std::string::npos);
  EXPECT_EQ(count(svg, "<circle"), 3u);

  BarChart b;
  b.title = "b";
  b.y = {"stall", "s", false};
  b.categories = {"#1", "#2"};
  b.series = {"A", "B"};
  b.values = {{0.002, 0.004}, {std::nan(""), 0.003}};
  const std::string bars = render_svg(b);
  EXPECT_EQ(count(bars, "<rect") - 1, 3u);  // the background, then one bar per finite value
  EXPECT_NE(bars.find(">stall (ms)</text>"), std::string::npos) << bars;
}

// The plots byte for byte: build_plots over fixed reports (every plot with data, and every way a plot
// loses data and says so) must give exactly the sections in tests/reports/golden/, written from
// report_plots.cc before its scaffolding was shared. A change meant to alter a plot regenerates them:
// IOFAB_UPDATE_GOLDEN=1 writes the files instead of comparing, and git diff shows what moved.
std::string plots_text(const std::vector<SystemReport>& systems) {
  std::string out;
  for (const PlotSection& s : build_plots(systems)) {
    out += "== " + s.id + "\n" + s.heading + "\n" + s.explanation + "\n";
    for (const auto& svg : s.svgs) out += "-- svg\n" + svg + "\n";
    for (const auto& note : s.notes) out += "-- note\n" + note + "\n";
  }
  return out;
}

// Reports whose plots lose data every way report_plots.cc handles: a malformed, an empty and a missing
// latency histogram; too many checkpoints, checkpoints without details, allowed stalls that differ; a
// restore phase without restore_seconds; a malformed series; a step without its breakdown.
std::vector<json> awkward_reports() {
  json train_bad = make_phase("train", "train_read", {{"read_bytes_per_s", 1e9}});
  train_bad["result"]["details"]["latency_histogram"] = {{"buckets", "not a histogram"}};
  json train_empty = make_phase("train", "train_read", {{"samples_per_s", 10.0}});
  train_empty["result"]["details"]["sample_latency_histogram"] = Histogram().to_json();
  json train_none = make_phase("train", "train_read", {{"au", 0.5}});

  json ckpt_many = make_phase("ckpt", "checkpoint", {{"allowed_stall_seconds", 100}});
  for (int i = 0; i < 70; ++i) {
    ckpt_many["result"]["details"]["checkpoints"].push_back(
        {{"stall_seconds", 1.0 + i}, {"budget", {{"projected_seconds", 2.0 * i}}}});
  }
  json ckpt_plain =
      make_phase("ckpt", "checkpoint", {{"stall_seconds_max", 3.0}, {"allowed_stall_seconds", 90}});
  json ckpt_bare = make_phase("ckpt", "checkpoint", {{"write_bytes", 5e9}});
  json summary_only =
      make_phase("ckpt2", "checkpoint", {{"stall_seconds_max", 4.0}, {"stall_seconds_mean", 2.0}});
  json no_stalls = make_phase("ckpt3", "checkpoint", {{"write_bytes", 1e9}});

  json restore_bare = make_phase("restore", "restore", {{"read_bytes_per_s", 3e9}});
  json restore_plain =
      make_phase("restore", "restore", {{"restore_seconds", 30.0}, {"allowed_restore_seconds", 60}});

  json ingest_bad_series = make_phase("ingest", "ingest", {{"write_bytes_per_s", 2e9}, {"write_bytes", 1e9}});
  ingest_bad_series["result"]["details"]["series"] = {{"interval_ns", "soon"}};
  json ingest_idle = make_phase("ingest", "ingest", {{"write_bytes", 1e9}});
  ingest_idle["result"]["details"]["series"] = series_json(0, 5);

  json coll = make_phase("coll", "collectives",
                         {{"ddp.step_seconds", 0.5},
                          {"fsdp.step_seconds", 0.6},
                          {"fsdp.compute_seconds", 0.2},
                          {"fsdp.exposed_comm_seconds", 0.4},
                          {"busbw.broadcast.4096", 1e9},
                          {"busbw.broadcast.1024", 5e8},
                          {"busbw.broadcast.max", 1e9}});
  json coll2 =
      make_phase("coll", "collectives", {{"busbw.reduce.65536", 2e9}, {"busbw.broadcast.1024", 7e8}});

  return {
      make_report(json::array({train_bad, ckpt_many, restore_bare, ingest_bad_series, coll, summary_only}),
                  kSuiteSha, 1, "a"),
      make_report(json::array({train_empty, ckpt_plain, restore_plain, ingest_idle, coll2, no_stalls}),
                  kSuiteSha, 1, "b"),
      make_report(json::array({train_none, ckpt_bare}), kSuiteSha, 1, "c")};
}

struct Golden {
  const char* file;
  std::vector<json> reports;
};

std::vector<Golden> goldens() {
  return {{"report_plots_full.txt", {full_report("node-a", 1.0), full_report("node-b", 0.7)}},
          {"report_plots_awkward.txt", awkward_reports()},
          {"report_plots_empty.txt", {make_report(json::array())}},
          // A restore phase without restore_seconds: a note, and no "No data".
          {"report_plots_restore.txt",
           {make_report(json::array({make_phase("restore", "restore", {{"read_bytes_per_s", 3e9}})}))}}};
}

TEST(ReportPlots, SectionsMatchTheGoldenFiles) {
  const bool update = std::getenv("IOFAB_UPDATE_GOLDEN") != nullptr;
  for (const Golden& g : goldens()) {
    const std::string path = std::string(IOFAB_SOURCE_DIR) + "/tests/reports/golden/" + g.file;
    const std::string text = plots_text(systems_of(g.reports));
    if (update) {
      write_file(path, text);
      continue;
    }
    const std::string want = read_file(path);
    ASSERT_FALSE(want.empty()) << path;
    EXPECT_TRUE(text == want) << g.file << " differs; IOFAB_UPDATE_GOLDEN=1 rewrites it, then see git diff";
  }
}

}  // namespace
}  // namespace iofab::testing
