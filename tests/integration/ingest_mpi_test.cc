// Multi-rank runs under mpirun: the report counts every rank's bytes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

TEST(MpiIngest, TwoRanksReportBothRanksBytes) {
  TempDir dir("/var/tmp");
  const std::string report = dir.path() + "/r.json", suite = dir.path() + "/s.json";
  // The default suite's ingest, without its speed checks: what is asserted here holds on a loaded disk too.
  write_file(suite, R"({"defaults": {"engine": "auto", "direct": true, "workers": 2},
      "phases": [{"kind": "ingest", "name": "ingest", "files_per_worker": 2, "file_size": "8MiB",
                  "block_size": "1MiB", "queue_depth": 16}]})");
  CommandResult r = mpirun_iofab(2, {"run", suite, "--target", dir.path() + "/t", "--out", report, "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  json j = json::parse(read_file(report));
  EXPECT_EQ(j["cluster"]["ranks"], 2);
  EXPECT_EQ(j["cluster"]["comm"], "mpi");
  const json& m = j["phases"][0]["result"]["metrics"];
  // 2 ranks x 2 workers x 2 files x 8 MiB
  EXPECT_EQ(m["write_bytes"], 2 * 2 * 2 * (8 << 20));
  const json& per_rank = j["phases"][0]["result"]["details"]["per_rank"];
  ASSERT_EQ(per_rank.size(), 2u);
  EXPECT_EQ(per_rank[0]["bytes"], 2 * 2 * (8 << 20));
  EXPECT_EQ(per_rank[1]["bytes"], 2 * 2 * (8 << 20));
  // Aggregate bandwidth spans both ranks, so it cannot exceed the sum of the ranks' own.
  EXPECT_LE(m["write_bytes_per_s"].get<double>(),
            per_rank[0]["bytes_per_s"].get<double>() + per_rank[1]["bytes_per_s"].get<double>() + 1);
  EXPECT_LE(m["rank_bytes_per_s_min"].get<double>(), m["rank_bytes_per_s_max"].get<double>());
  // Both ranks' setup reached the report's writer (the slowest rank's), within the phase's wall time.
  ASSERT_TRUE(j["phases"][0]["setup_seconds"].is_number()) << j["phases"][0].dump();
  EXPECT_LE(j["phases"][0]["setup_seconds"].get<double>(), j["phases"][0]["seconds"].get<double>());
  EXPECT_TRUE(list_files(dir.path() + "/t").empty());
}

TEST(MpiIngest, BadSuiteExitsTwoOnEveryRank) {
  TempDir dir("/dev/shm");
  CommandResult r = mpirun_iofab(2, {"run", "--target", dir.path(), "--set", "phases.ingest.workers=0"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("phases[0].workers"), std::string::npos) << r.err;
}

// 1024 PiB x 8 files fits in 64 bits on one rank (2^63) but not on two: the sum wrapped to 0, passed the
// preflight and wrote until ENOSPC (here a 64 MiB tmpfs keeps the old behaviour cheap). It is refused before
// anything is written, naming the phase.
TEST(MpiIngest, PlannedBytesPast2To64OnTwoRanksAreRefusedBeforeWriting) {
  SmallTmpfs fs;
  if (!fs.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here (needs root)";
  TempDir dir("/dev/shm");
  write_file(dir.path() + "/s.json", R"({"phases": [{"kind": "ingest", "engine": "psync", "direct": false,
    "file_size": "1024PiB", "files_per_worker": 8, "workers": 1}]})");
  CommandResult r = run_iofab({"validate", dir.path() + "/s.json"});
  ASSERT_EQ(r.exit_code, 0) << "fits on one rank: " << r.err;
  r = mpirun_iofab(2, {"run", dir.path() + "/s.json", "--target", fs.path(), "--out", dir.path() + "/r.json",
                       "--quiet"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("phase ingest: the bytes it puts on the target on 2 ranks exceed 2^64 bytes"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(list_files(fs.path()).empty());
}

}  // namespace
}  // namespace iofab::testing
