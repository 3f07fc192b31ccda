// OpenMetrics output (`iofab report --format openmetrics`, `iofab run --openmetrics`): every headline
// figure and check as a gauge with the run's labels, label values escaped, "# EOF" last, and the text
// accepted by a real parser (promtool, from Debian's prometheus package, which ci/setup installs).
#include "reports/openmetrics_report.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <optional>
#include <string>

#include "reports/report_fixtures.h"
#include "reports/report_reader.h"
#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

Report report_of(const json& doc) {
  LoadedReport loaded;
  Status st = read_report_json(doc, "r.json", &loaded);
  EXPECT_TRUE(st.ok()) << st.message();
  return loaded.report;
}

json sample_doc() {
  json ingest = make_phase("ingest", "ingest", {{"write_bytes_per_s", 1.5e9}, {"latency_p99_s", 0.0025}});
  ingest["result"]["details"]["headline"] = {"write_bytes_per_s", "latency_p99_s"};
  add_check(&ingest, "write_bytes_per_s >= 1GB/s", "write_bytes_per_s", ">=", 1e9, 1.5e9, true);
  json restore = make_phase("restore", "restore", {{"read_bytes_per_s", 2e8}});
  restore["result"]["details"]["headline"] = {"read_bytes_per_s"};
  add_check(&restore, "read_bytes_per_s >= 1GB/s", "read_bytes_per_s", ">=", 1e9, 2e8, false);
  json doc = make_report(json::array({ingest, restore}));
  doc["verdict"]["status"] = "failed";
  return doc;
}

// promtool's verdict on text, or nullopt when promtool is not installed.
std::optional<CommandResult> promtool_check(const std::string& text) {
  if (access("/usr/bin/promtool", X_OK) != 0) return std::nullopt;
  TempDir d;
  write_file(d.path() + "/m.prom", text);
  return run_command({"/bin/sh", "-c", "/usr/bin/promtool check metrics < " + d.path() + "/m.prom"});
}

TEST(OpenMetrics, EveryHeadlineFigureAndCheckWithTheRunsLabels) {
  const std::string text = openmetrics_for_run(report_of(sample_doc()));
  const std::string run = "suite=\"nightly\",target_fs=\"ext4\",hosts=\"node1\"";
  EXPECT_TRUE(contains(text, "# TYPE iofab_phase_metric gauge\n")) << text;
  EXPECT_TRUE(
      contains(text, "iofab_phase_metric{" + run +
                         ",phase=\"ingest\",metric=\"write_bytes_per_s\",unit=\"bytes/s\"} 1500000000\n"))
      << text;
  EXPECT_TRUE(contains(
      text, "iofab_phase_metric{" + run + ",phase=\"ingest\",metric=\"latency_p99_s\",unit=\"s\"} 0.0025\n"))
      << text;
  EXPECT_TRUE(contains(
      text, "iofab_check_passed{" + run +
                ",phase=\"restore\",check=\"read_bytes_per_s >= 1GB/s\",metric=\"read_bytes_per_s\"} 0\n"))
      << text;
  EXPECT_TRUE(contains(
      text, "iofab_check_value{" + run +
                ",phase=\"ingest\",check=\"write_bytes_per_s >= 1GB/s\",metric=\"write_bytes_per_s\"} "
                "1500000000\n"))
      << text;
  EXPECT_TRUE(contains(text, "iofab_run_passed{" + run + "} 0\n")) << text;
  // 2024-05-01T12:00:00Z
  EXPECT_TRUE(contains(text, "iofab_run_start_time_seconds{" + run + "} 1714564800\n")) << text;
  ASSERT_GE(text.size(), 6u);
  EXPECT_EQ(text.substr(text.size() - 6), "# EOF\n");
  // Each family once: its samples together, after its TYPE line.
  EXPECT_EQ(text.find("# TYPE iofab_phase_metric"), text.rfind("# TYPE iofab_phase_metric"));
}

TEST(OpenMetrics, LabelValuesAreEscaped) {
  EXPECT_EQ(openmetrics_label_escape("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
  json doc = sample_doc();
  doc["run"]["suite"]["name"] = "we\"ird\\suite\nname";
  const std::string text = openmetrics_for_run(report_of(doc));
  EXPECT_TRUE(contains(text, "suite=\"we\\\"ird\\\\suite\\nname\"")) << text;
  auto checked = promtool_check(text);
  if (!checked) GTEST_SKIP() << "promtool not installed (apt-get install prometheus; ci/setup installs it)";
  EXPECT_EQ(checked->exit_code, 0) << checked->out << checked->err << text;
}

TEST(OpenMetrics, PromtoolAcceptsARunAndAPageOfSeveral) {
  const std::string one = openmetrics_for_run(report_of(sample_doc()));
  std::vector<SystemReport> systems(2);
  systems[0].label = "vendor-a";
  systems[1].label = "vendor-b";
  ASSERT_TRUE(read_report_json(sample_doc(), "a.json", &systems[0].loaded).ok());
  ASSERT_TRUE(read_report_json(sample_doc(), "b.json", &systems[1].loaded).ok());
  const std::string page = openmetrics_for_systems(systems);
  EXPECT_TRUE(contains(page, "iofab_run_passed{system=\"vendor-b\",suite=\"nightly\"")) << page;
  auto a = promtool_check(one);
  if (!a) GTEST_SKIP() << "promtool not installed (apt-get install prometheus; ci/setup installs it)";
  EXPECT_EQ(a->exit_code, 0) << a->out << a->err << one;
  auto b = promtool_check(page);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->exit_code, 0) << b->out << b->err << page;
  // The check is real: a label value's quote left unescaped is a parse error to promtool.
  std::string unescaped = one;
  unescaped.replace(unescaped.find("suite=\"nightly\""), 15, "suite=\"nig\"htly\"");
  auto bad = promtool_check(unescaped);
  ASSERT_TRUE(bad);
  EXPECT_NE(bad->exit_code, 0) << unescaped;
}

}  // namespace
}  // namespace iofab::testing
