// `iofab run --live`, `--live-openmetrics` and `--progress-every` (docs/live.md): the stream's lines
// against the schema and the report, the progress lines in a log (the test's stderr is a pipe, as a batch
// job's is), the textfile through promtool, and bad values refused before anything is written.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

// One ingest phase on tmpfs, long enough for a few 10 ms intervals on a quiet machine (the tests hold on a
// loaded one too: they count nothing that depends on speed).
std::string ingest_suite(const std::string& dir) {
  const std::string path = dir + "/suite.json";
  write_file(path, R"({"name": "live", "phases": [{"kind": "ingest", "name": "ingest", "workers": 2,
    "files_per_worker": 16, "file_size": "4MiB", "block_size": "256KiB", "direct": false, "engine": "psync"}]})");
  return path;
}

std::vector<json> json_lines(const std::string& text) {
  std::vector<json> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(json::parse(line));
  return out;
}

void expect_valid_stream(const std::string& path) {
  CommandResult v =
      run_command({"/usr/bin/python3", std::string(IOFAB_SOURCE_DIR) + "/tests/validate_live.py",
                   std::string(IOFAB_SOURCE_DIR) + "/docs/live.schema.json", path});
  if (v.exit_code == 77) return;  // no jsonschema module: the content checks below still run
  EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
}

// The stream of one phase against its report: the last interval line, then the final line with the
// report's figures; the intervals' rates over their lengths add up to the phase's bytes.
void expect_stream_agrees(const std::vector<json>& lines, const json& report,
                          const std::string& bytes_metric) {
  ASSERT_GE(lines.size(), 2u);
  const json& fin = lines.back();
  const json& phase = report["phases"][0];
  ASSERT_EQ(fin["type"], "final");
  EXPECT_EQ(fin["phase"], phase["name"]);
  EXPECT_EQ(fin["status"], phase["status"]);
  EXPECT_EQ(fin["seconds"], phase["seconds"]);
  EXPECT_EQ(fin["metrics"], phase["result"]["metrics"]);
  EXPECT_EQ(fin["run_id"], report["run"]["id"]);
  double summed = 0;
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    EXPECT_EQ(lines[i]["type"], "interval");
    EXPECT_EQ(lines[i]["last"], i + 2 == lines.size()) << i;
    summed += lines[i]["bytes_per_s"].get<double>() * lines[i]["interval_s"].get<double>();
  }
  const double bytes = phase["result"]["metrics"][bytes_metric].get<double>();
  EXPECT_NEAR(summed, bytes, bytes * 0.01);
  EXPECT_EQ(fin["bytes"].get<double>(), bytes);
  EXPECT_EQ(lines[lines.size() - 2]["bytes"], fin["bytes"]);
}

TEST(LiveCli, TheStreamsLastLineIsTheReportsFigures) {
  TempDir d("/dev/shm");
  const std::string live = d.path() + "/live.jsonl", report = d.path() + "/r.json";
  CommandResult r = run_iofab({"run", ingest_suite(d.path()), "--target", d.path() + "/t", "--out", report,
                               "--live", live, "--live-interval", "10ms", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_valid_stream(live);
  const std::vector<json> lines = json_lines(read_file(live));
  expect_stream_agrees(lines, json::parse(read_file(report)), "write_bytes");
  const json& last = lines[lines.size() - 2];
  EXPECT_EQ(last["ranks"], 1);
  EXPECT_EQ(last["ops"], 2 * 16 * 16);  // every 256 KiB write went through the I/O driver
  EXPECT_EQ(last["planned_bytes"], 2 * 16 * (4 << 20));
}

TEST(LiveCli, StdoutCarriesOnlyTheStream) {
  TempDir d("/dev/shm");
  const std::string report = d.path() + "/r.json";
  CommandResult r = run_iofab({"run", ingest_suite(d.path()), "--target", d.path() + "/t", "--out", report,
                               "--live", "-", "--live-interval", "10ms"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_stream_agrees(json_lines(r.out), json::parse(read_file(report)), "write_bytes");
  EXPECT_TRUE(contains(r.err, "report: ")) << "the summary went to stderr: " << r.err;
}

// Counts the plain progress lines in a log, and checks each: every figure named, no control code.
size_t progress_lines(const std::string& err) {
  size_t n = 0;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);) {
    if (!contains(line, " ingest ") || !contains(line, " so far, ")) continue;
    ++n;
    EXPECT_TRUE(contains(line, " of ") && contains(line, "%)")) << line;
    EXPECT_TRUE(contains(line, " in the last ")) << line;
  }
  return n;
}

TEST(LiveCli, ALogGetsPlainProgressLines) {
  TempDir d("/dev/shm");
  const std::string report = d.path() + "/r.json";
  CommandResult r = run_iofab({"run", ingest_suite(d.path()), "--target", d.path() + "/t", "--out", report,
                               "--progress-every", "10ms"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find('\033'), std::string::npos) << "no terminal control codes in a log: " << r.err;
  EXPECT_EQ(r.err.find('\r'), std::string::npos) << r.err;
  const size_t n = progress_lines(r.err);
  // One a tick at most (a tick is printed from half of it on), and at least one when the phase lasted
  // two ticks: bounds from the phase's own measured time, not from the test's clock.
  const double seconds = json::parse(read_file(report))["phases"][0]["seconds"].get<double>();
  EXPECT_LE(double(n), seconds / 0.01 + 1) << r.err;
  if (seconds >= 0.05) {
    EXPECT_GE(n, 1u) << r.err;
  }

  // Off with 0, and with --quiet (today's meaning: nothing live).
  for (const std::vector<std::string>& off : {std::vector<std::string>{"--progress-every", "0"},
                                              std::vector<std::string>{"--progress-every", "10ms", "-q"}}) {
    std::vector<std::string> args{"run", ingest_suite(d.path()), "--target", d.path() + "/t", "--out",
                                  report};
    args.insert(args.end(), off.begin(), off.end());
    CommandResult q = run_iofab(args);
    ASSERT_EQ(q.exit_code, 0) << q.err;
    EXPECT_EQ(progress_lines(q.err), 0u) << off[1] << ": " << q.err;
  }
}

TEST(LiveCli, TheTextfileIsLeftWithThePhasesLastFiguresAndPassesPromtool) {
  TempDir d("/dev/shm");
  const std::string prom = d.path() + "/iofab_live.prom", report = d.path() + "/r.json";
  CommandResult r = run_iofab({"run", ingest_suite(d.path()), "--target", d.path() + "/t", "--out", report,
                               "--live-openmetrics", prom, "--live-interval", "10ms", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = read_file(prom);
  const json j = json::parse(read_file(report));
  const std::string labels = "{run_id=\"" + j["run"]["id"].get<std::string>() + "\",phase=\"ingest\"}";
  EXPECT_TRUE(
      contains(text, "iofab_live_done_bytes" + labels + " " + std::to_string(2 * 16 * (4 << 20)) + "\n"))
      << text;
  EXPECT_TRUE(contains(text, "iofab_live_phase_finished" + labels + " 1\n")) << text;
  // The temp file it was written through is gone (renamed over the file).
  EXPECT_EQ(list_files(d.path()).size(), 3u) << "suite, report, textfile";
  if (access("/usr/bin/promtool", X_OK) != 0) GTEST_SKIP() << "promtool not installed (ci/setup installs it)";
  CommandResult check = run_command({"/bin/sh", "-c", "/usr/bin/promtool check metrics < " + prom});
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err << text;
}

TEST(LiveCli, BadValuesExitTwoNamingTheFlagAndWriteNothing) {
  TempDir d("/dev/shm");
  const std::string report = d.path() + "/r.json", live = d.path() + "/live.jsonl";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--live-interval", "0"}, "--live-interval: expected a duration from 10ms to 24h"},
      {{"--live-interval", "fast"}, "--live-interval: expected a duration"},
      {{"--progress-every", "-3s"}, "--progress-every: expected a duration from 10ms to 24h like \"30s\""},
      {{"--live-openmetrics", "-"}, "--live-openmetrics: expected a FILE"},
      {{"--live", d.path() + "/no/such/dir/l.jsonl"}, "--live"},
      {{"--live-openmetrics", d.path() + "/no/such/dir/l.prom"}, "--live-openmetrics"},
  };
  for (const auto& [flags, message] : cases) {
    std::vector<std::string> args{"run", ingest_suite(d.path()), "--target", d.path() + "/t", "--out",
                                  report};
    args.insert(args.end(), flags.begin(), flags.end());
    if (flags[0] != "--live") args.insert(args.end(), {"--live", live});
    CommandResult r = run_iofab(args);
    EXPECT_EQ(r.exit_code, 2) << flags[0] << " " << flags[1] << ": " << r.err;
    EXPECT_TRUE(contains(r.err, message)) << r.err;
    EXPECT_FALSE(std::filesystem::exists(report)) << flags[0];
    EXPECT_FALSE(std::filesystem::exists(live)) << flags[0];
    EXPECT_FALSE(std::filesystem::exists(d.path() + "/t")) << flags[0];
  }
}

}  // namespace
}  // namespace iofab::testing
