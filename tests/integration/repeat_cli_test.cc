// End to end: `iofab run --repeat`, then compare and report on what it wrote.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

// One small buffered ingest on tmpfs: quick, and its byte count is exact.
constexpr const char* kSuite = R"({
  "name": "tiny",
  "phases": [{"kind": "ingest", "direct": false, "workers": 1, "files_per_worker": 1,
              "file_size": "1MiB", "block_size": "64KiB",
              "checks": [{"metric": "write_bytes", "op": "==", "value": "1MiB"},
                         {"name": "impossible", "metric": "write_bytes_per_s", "op": ">=", "value": "1000TB/s"}]}]
})";

TEST(RepeatCli, RepeatRecordsEveryRunAndChecksTheMeans) {
  TempDir dir("/dev/shm");
  const std::string suite = dir.path() + "/tiny.json", report = dir.path() + "/r.json",
                    junit = dir.path() + "/j.xml";
  write_file(suite, kSuite);
  CommandResult r = run_iofab({"run", suite, "--target", dir.path() + "/t", "--out", report, "--repeat", "2",
                               "--no-warmup", "--junit", junit});
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;  // the impossible check fails, on the mean
  EXPECT_NE(r.err.find("run 2 of 2"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("warm-up"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("repeat: 2 of 2 runs"), std::string::npos) << r.out;
  json j = json::parse(read_file(report));
  EXPECT_EQ(j["run"]["repeat"]["count"], 2);
  EXPECT_EQ(j["run"]["repeat"]["completed"], 2);
  EXPECT_TRUE(j["run"]["repeat"]["warmup"].is_null());
  ASSERT_EQ(j["run"]["repeat"]["runs"].size(), 2u);
  const json& p = j["phases"][0];
  const json& st = p["result"]["details"]["repeat"]["stats"]["write_bytes_per_s"];
  ASSERT_EQ(st["n"], 2);
  ASSERT_EQ(st["values"].size(), 2u);
  const double v0 = st["values"][0].get<double>(), v1 = st["values"][1].get<double>();
  // Each recorded run's own figure is one of the values.
  EXPECT_EQ(j["run"]["repeat"]["runs"][0]["phases"][0]["metrics"]["write_bytes_per_s"].get<double>(), v0);
  EXPECT_EQ(j["run"]["repeat"]["runs"][1]["phases"][0]["metrics"]["write_bytes_per_s"].get<double>(), v1);
  const double mean = (v0 + v1) / 2;
  EXPECT_NEAR(st["mean"].get<double>(), mean, mean * 1e-12);
  EXPECT_NEAR(st["stdev"].get<double>(), std::fabs(v0 - v1) / std::sqrt(2.0), mean * 1e-9);
  EXPECT_NEAR(st["cv"].get<double>(), st["stdev"].get<double>() / mean, 1e-9);
  EXPECT_NEAR(p["result"]["metrics"]["write_bytes_per_s"].get<double>(), mean, mean * 1e-12);
  EXPECT_EQ(p["result"]["details"]["repeat"]["stats"]["write_bytes"]["stdev"], 0);
  // Checks are evaluated on the means.
  ASSERT_EQ(p["checks"].size(), 2u);
  EXPECT_EQ(p["checks"][0]["passed"], true);
  EXPECT_EQ(p["checks"][0]["value"], 1 << 20);
  EXPECT_EQ(p["checks"][1]["passed"], false);
  EXPECT_NEAR(p["checks"][1]["value"].get<double>(), mean, mean * 1e-12);
  EXPECT_EQ(j["verdict"]["status"], "failed");
  EXPECT_EQ(p["status"], "failed");
  // "better" sits beside "units" so compare knows each metric's direction.
  EXPECT_EQ(p["result"]["details"]["better"]["write_bytes_per_s"], "higher");
  EXPECT_EQ(p["result"]["details"]["better"]["latency_p99_s"], "lower");
  EXPECT_EQ(p["result"]["details"]["better"]["write_bytes"], "neither");
  const std::string xml = read_file(junit);
  EXPECT_NE(xml.find("tests=\"3\" failures=\"1\""), std::string::npos) << xml;
}

TEST(RepeatCli, WarmupRunIsRecordedButNotCounted) {
  TempDir dir("/dev/shm");
  const std::string suite = dir.path() + "/tiny.json", report = dir.path() + "/r.json";
  write_file(suite, kSuite);
  CommandResult r =
      run_iofab({"run", suite, "--target", dir.path() + "/t", "--out", report, "--repeat", "1", "-q"});
  ASSERT_EQ(r.exit_code, 1) << r.err;
  json j = json::parse(read_file(report));
  EXPECT_TRUE(j["run"]["repeat"]["warmup"].is_object());
  EXPECT_FALSE(j["run"]["repeat"]["warmup"]["id"].get<std::string>().empty());
  EXPECT_NE(j["run"]["repeat"]["warmup"]["id"], j["run"]["repeat"]["runs"][0]["id"]);
  EXPECT_EQ(j["run"]["repeat"]["runs"].size(), 1u);
  EXPECT_EQ(j["phases"][0]["result"]["details"]["repeat"]["stats"]["write_bytes_per_s"]["n"], 1);
  r = run_iofab({"run", suite, "--target", dir.path() + "/t", "--repeat", "0"});
  EXPECT_EQ(r.exit_code, 2);
}

TEST(RepeatCli, CompareAndReportOnRealReports) {
  TempDir dir("/dev/shm");
  const std::string suite = dir.path() + "/tiny.json", base = dir.path() + "/base.json";
  write_file(suite, R"({"name": "tiny", "phases": [{"kind": "ingest", "direct": false, "workers": 1,
      "files_per_worker": 1, "file_size": "1MiB", "block_size": "64KiB"}]})");
  CommandResult r = run_iofab(
      {"run", suite, "--target", dir.path() + "/t", "--out", base, "--repeat", "2", "--no-warmup", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // A report against itself: nothing moved.
  r = run_iofab({"compare", base, base});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("0 regressed, 0 missing"), std::string::npos) << r.out;
  // A tenth of the bandwidth, with tight runs on both sides (tiny runs on tmpfs scatter a lot, and a
  // change inside that scatter is rightly noise): a regression.
  json tight = json::parse(read_file(base));
  auto& t = tight["phases"][0]["result"];
  const double bw = t["metrics"]["write_bytes_per_s"].get<double>();
  t["details"]["repeat"]["stats"]["write_bytes_per_s"]["values"] = {bw * 0.99, bw * 1.01};
  write_file(base, tight.dump());
  json cur = tight;
  auto& p = cur["phases"][0]["result"];
  p["metrics"]["write_bytes_per_s"] = bw / 10;
  p["details"]["repeat"]["stats"]["write_bytes_per_s"]["values"] = {bw / 10 * 0.99, bw / 10 * 1.01};
  const std::string slow = dir.path() + "/slow.json";
  write_file(slow, cur.dump());
  r = run_iofab({"compare", base, slow, "--metric", "write_bytes_per_s"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("REGRESSED"), std::string::npos) << r.out;
  // Another suite: refused, unless forced.
  cur["run"]["suite"]["sha256"] = std::string(64, '0');
  write_file(slow, cur.dump());
  r = run_iofab({"compare", base, slow});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  r = run_iofab({"compare", base, slow, "--force", "--metric", "write_bytes_per_s"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;

  const std::string page = dir.path() + "/page.html", md = dir.path() + "/page.md";
  r = run_iofab({"report", base, "--label", "before", slow, "--label", "after", "-o", page});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = read_file(page);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find(">before</text>"), std::string::npos);
  r = run_iofab({"report", base, "-o", md});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(read_file(md).find("| parameter | base |"), std::string::npos) << read_file(md);
  r = run_iofab({"report", base, slow, "-o", page, "--label", "only-one"});
  EXPECT_EQ(r.exit_code, 2);
}

}  // namespace
}  // namespace iofab::testing
