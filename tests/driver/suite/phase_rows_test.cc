// A phase is its row: the suite reader, the page and the console read a kind's columns (per_host, scale,
// links, plots, definitions, budget metric, console lines), never its name. A made-up kind whose row has
// a link is checked as restore's is; the table's rows say what the driver used to guess.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "driver/suite/phase_links.h"
#include "driver/suite/suite.h"
#include "driver/suite/target_scope.h"
#include "reports/report_reader.h"
#include "workloads/phase_table.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

const std::vector<MetricInfo>& no_metrics() {
  static const std::vector<MetricInfo> kNone;
  return kNone;
}

// A made-up kind that reads an earlier "writer" phase's files, named by its `source` param or the nearest.
std::string source_is_empty(const json&, const json& source, const std::string& name) {
  return source.value("empty", false) ? ".source: " + name + " wrote nothing" : "";
}
constexpr PhaseLink kReaderLinks[] = {{.param = "source",
                                       .kind = "writer",
                                       .what = "its files",
                                       .missing = "nothing to read",
                                       .missing_hint = "put a writer before it",
                                       .check_source = &source_is_empty}};
const PhaseKind kWriter{.name = "writer", .summary = "", .parse = nullptr, .metrics = &no_metrics};
const PhaseKind kReader{
    .name = "reader", .summary = "", .parse = nullptr, .metrics = &no_metrics, .links = kReaderLinks};

PhaseSpec spec(const PhaseKind& kind, const std::string& name, json params = json::object()) {
  PhaseSpec s;
  s.name = name;
  s.kind = &kind;
  s.params = std::move(params);
  return s;
}

std::vector<std::string> link_errors(const std::vector<PhaseSpec>& phases) {
  std::vector<std::string> paths, errors;
  for (size_t i = 0; i < phases.size(); ++i) paths.push_back("phases[" + std::to_string(i) + "]");
  check_phase_links(phases, paths, &errors);
  return errors;
}

TEST(PhaseRows, AMadeUpKindsLinkRowIsCheckedAsRestoresIs) {
  std::vector<PhaseSpec> phases;
  phases.push_back(spec(kReader, "r"));
  EXPECT_EQ(
      link_errors(phases),
      std::vector<std::string>{"phases[0]: nothing to read: no writer phase runs before r; put a writer "
                               "before it"});
  phases.clear();
  phases.push_back(spec(kWriter, "w", {{"empty", true}}));
  phases.push_back(spec(kReader, "r"));
  EXPECT_EQ(link_errors(phases), std::vector<std::string>{"phases[1].source: w wrote nothing"});
  phases[0].params = json::object();
  EXPECT_TRUE(link_errors(phases).empty());
  phases.push_back(spec(kReader, "r2", {{"source", "r"}}));
  const auto errors = link_errors(phases);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("phases[2].source: phase \"r\" is a reader phase, not a writer"),
            std::string::npos)
      << errors[0];
}

TEST(PhaseRows, TargetScopeHostNamesTheKindsWhoseRowsSayPerHost) {
  std::string per_host;
  for (const PhaseKind& k : phase_table()) {
    if (k.per_host) per_host += std::string(per_host.empty() ? "" : ", ") + std::string(k.name);
  }
  EXPECT_EQ(per_host, "ingest, checkpoint, collectives, rdma");
  Suite s;
  ASSERT_TRUE(
      parse_suite(R"({"target_scope": "host", "phases": [{"kind": "metadata"}]})", "t.json", {}, &s).ok());
  std::vector<std::string> errors;
  check_target_scope(s, &errors);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("expected only ingest, checkpoint, collectives and rdma phases with it"),
            std::string::npos)
      << errors[0];
}

TEST(PhaseRows, ScaleFollowsEachKindsScaleColumn) {
  Suite s;
  const std::string suite =
      R"({"phases": [{"kind": "checkpoint", "checkpoint_size": "1GiB", "count": 1},
                     {"kind": "train_read", "name": "tr"}]})";
  ASSERT_TRUE(parse_suite(suite, "t.json", {"checkpoint_scale=4"}, &s).ok());
  EXPECT_EQ(s.document["phases"][0]["scale"], 4);
  EXPECT_FALSE(s.document["phases"][1].contains("scale"));  // kWhenScaleGiven: the suite gave none
  EXPECT_EQ(find_phase_kind("checkpoint")->scale, ScaleRule::kAlways);
  EXPECT_EQ(find_phase_kind("train_read")->scale, ScaleRule::kWhenScaleGiven);
}

TEST(PhaseRows, AReportWithoutUnitsTakesThemFromItsKindsRow) {
  PhaseReport p;
  p.kind = "train_read";
  // mlperf_au's name alone would read as a count; its row says fraction.
  EXPECT_EQ(metric_unit(p, "mlperf_au"), "fraction");
  p.kind = "a-kind-this-build-does-not-know";
  EXPECT_EQ(metric_unit(p, "mlperf_au"), "count");
  EXPECT_EQ(metric_unit(p, "write_bytes_per_s"), "bytes/s");
}

TEST(PhaseRows, ReadBackIsTheRestoresLinkToACheckpoint) {
  const PhaseLink* link = read_back_link("restore");
  ASSERT_NE(link, nullptr);
  EXPECT_EQ(link->kind, "checkpoint");
  EXPECT_EQ(read_back_link("checkpoint"), nullptr);
  EXPECT_EQ(read_back_link("no-such-kind"), nullptr);
  // Every link names a kind of the table.
  for (const PhaseKind& k : phase_table()) {
    for (const PhaseLink& l : k.links)
      EXPECT_NE(find_phase_kind(l.kind), nullptr) << k.name << "." << l.param;
  }
}

}  // namespace
}  // namespace iofab::testing
