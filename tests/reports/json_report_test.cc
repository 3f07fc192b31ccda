// The report file's layout: the same JSON value as report_to_json, indented, with a per-rank row, a
// series and a histogram's buckets on one line each, so a report of 16,384 ranks stays small.
#include "reports/json_report.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace iofab {
namespace {

using nlohmann::json;

Report report_with_ranks(int ranks) {
  Report r;
  r.cluster = {
      {"ranks", ranks}, {"rank_hosts", json::array()}, {"hosts", json::array({{{"hostname", "n0"}}})}};
  PhaseReport p;
  p.name = p.kind = "ingest";
  p.metrics = {{"write_bytes", 4096 * ranks}, {"write_bytes_per_s", 1.5e9}};
  json per_rank = json::array();
  for (int i = 0; i < ranks; ++i) {
    per_rank.push_back({{"rank", i}, {"bytes", 4096}, {"error", i == 1 ? "disk \"full\"\n" : ""}});
    r.cluster["rank_hosts"].push_back("n0");
  }
  p.details = {{"per_rank", per_rank},
               {"series", {{"interval_ns", 100000000}, {"bytes", {1, 2, 3}}}},
               {"latency_histogram", {{"buckets", {{1, 2}, {7, 9}}}, {"count", 11}}},
               {"empty", json::object()}};
  r.phases.push_back(p);
  return r;
}

size_t lines_holding(const std::string& text, const std::string& part) {
  std::istringstream in(text);
  size_t n = 0;
  for (std::string line; std::getline(in, line);) n += line.find(part) != std::string::npos;
  return n;
}

TEST(JsonReport, TheFileIsTheReportsJsonWithRowsSeriesAndBucketsOnOneLineEach) {
  const Report r = report_with_ranks(5);
  const std::string text = render_json_report(r);
  EXPECT_EQ(json::parse(text), report_to_json(r));
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  // Each rank's row is one line, its fields together; the error's quote and newline stay escaped.
  EXPECT_EQ(lines_holding(text, "\"rank\":"), 5u);
  EXPECT_EQ(lines_holding(text, R"({"bytes":4096,"error":"disk \"full\"\n","rank":1})"), 1u) << text;
  EXPECT_EQ(lines_holding(text, R"("bytes": [1,2,3])"), 1u) << text;
  EXPECT_EQ(lines_holding(text, R"("buckets": [[1,2],[7,9]])"), 1u) << text;
  EXPECT_EQ(lines_holding(text, R"("rank_hosts": ["n0","n0","n0","n0","n0"])"), 1u) << text;
  // An object of figures outside an array keeps a line per figure, indented as dump(2) would.
  EXPECT_EQ(lines_holding(text, "        \"write_bytes\": 20480"), 1u) << text;
}

TEST(JsonReport, ItGrowsWithTheRanksByOneShortLineEach) {
  const size_t small = render_json_report(report_with_ranks(100)).size();
  const size_t big = render_json_report(report_with_ranks(1100)).size();
  // A row of rank, bytes and error (~45 bytes) and a host name (5) per rank, indent included; dump(2)
  // would spend ~120.
  EXPECT_LT(big - small, 1000u * 64);
}

}  // namespace
}  // namespace iofab
