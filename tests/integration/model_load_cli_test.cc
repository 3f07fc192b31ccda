// model_load end to end through the iofab binary: bad params exit 2 naming the path with nothing
// written; the shipped side-by-side suite's shape (three engines on one set of files) at a small scale;
// the run folder gone afterwards.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

TEST(ModelLoadCli, BadParamsExitTwoNamingThePath) {
  TempDir dir("/dev/shm");
  struct Case {
    std::string phase;
    std::string says;
  };
  for (const Case& c : {
           Case{R"("engine": "mmap", "direct": true)", "phases[0].direct: engine mmap"},
           Case{R"("engine": "psync", "madvise": "random")", "phases[0].madvise: is the hint for an engine"},
           Case{R"("madvise": "huge")", "phases[0].madvise: expected one of \"none\""},
           Case{R"("weights_from": "x", "scale": 4)", "phases[0].scale: shapes the files"},
           Case{R"("scale": 0)", "phases[0].scale"},
           Case{R"("ready_budget": -1)", "phases[0].ready_budget"},
       }) {
    write_file(dir.path() + "/s.json", R"({"phases": [{"kind": "model_load", )" + c.phase + "}]}");
    CommandResult r = run_iofab({"run", dir.path() + "/s.json", "--target", dir.path() + "/t"});
    EXPECT_EQ(r.exit_code, 2) << c.phase << "\n" << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.phase << "\n" << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/t"));
}

TEST(ModelLoadCli, WeightsFromMustNameAnEarlierPhaseThatWroteWeights) {
  TempDir dir("/dev/shm");
  const std::string a = R"({"kind": "model_load", "name": "a", "scale": 1000})";
  const std::string b = R"({"kind": "model_load", "name": "b", "weights_from": "a"})";
  const std::string c = R"({"kind": "model_load", "name": "c", "weights_from": "b"})";
  const std::string ing = R"({"kind": "ingest", "name": "i"})";
  struct Case {
    std::string phases;
    std::string says;
  };
  for (const Case& k : {
           Case{b + ", " + a,
                "phases[0].weights_from: phase \"a\" runs after b, so it has written nothing yet"},
           Case{a + ", " + R"({"kind": "model_load", "weights_from": "z"})",
                "phases[1].weights_from: no phase named \"z\"; expected the name of a model_load phase that "
                "runs before model_load (earlier model_load phases: a)"},
           Case{ing + ", " + R"({"kind": "model_load", "weights_from": "i"})",
                "phases[1].weights_from: phase \"i\" is a ingest phase, not a model_load"},
           Case{a + ", " + b + ", " + c,
                "phases[2].weights_from: phase \"b\" writes no files: it reads \"a\"'s"},
       }) {
    write_file(dir.path() + "/s.json", R"({"phases": [)" + k.phases + "]}");
    CommandResult r = run_iofab({"validate", dir.path() + "/s.json"});
    EXPECT_EQ(r.exit_code, 2) << k.phases << "\n" << r.err;
    EXPECT_NE(r.err.find(k.says), std::string::npos) << k.phases << "\n" << r.err;
  }
}

TEST(ModelLoadCli, TheShippedSuiteRunsThreeEnginesOnOneSetOfFilesAndCleansUp) {
  TempDir dir("/var/tmp");
  const std::string report = dir.path() + "/r.json";
  // The shipped suite at 1/2000 of Llama 3 8B (about 8 MB), 2 replicas.
  CommandResult r =
      run_iofab({"run", std::string(IOFAB_SOURCE_DIR) + "/workloads/suites/model-load.json", "--target",
                 dir.path() + "/t", "--out", report, "--quiet", "--set", "defaults.workers=2", "--set",
                 "phases.load-mmap.scale=2000", "--set", "defaults.ready_budget=1h"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json j = json::parse(read_file(report));
  ASSERT_GE(j["phases"].size(), 3u);
  const json& written = j["phases"][0]["result"];
  EXPECT_EQ(written["details"]["weights"]["written_by_this_phase"], true);
  std::set<std::string> engines;
  for (const json& ph : j["phases"]) {
    EXPECT_EQ(ph["kind"], "model_load");
    if (ph["status"] == "skipped" || ph["status"] == "error")
      continue;  // io_uring where the kernel refuses it
    EXPECT_EQ(ph["status"], "passed") << ph["name"] << ": " << ph["reason"];
    const json& m = ph["result"]["metrics"];
    EXPECT_EQ(m["model_bytes"], written["metrics"]["model_bytes"]) << ph["name"];
    EXPECT_EQ(m["read_bytes"], 2 * m["model_bytes"].get<double>()) << ph["name"];
    EXPECT_EQ(m["corrupt_files"], 0);
    engines.insert(ph["result"]["details"]["engine"].get<std::string>());
  }
  EXPECT_TRUE(engines.count("mmap") && engines.count("psync")) << r.out;
  EXPECT_TRUE(std::filesystem::is_empty(dir.path() + "/t"));
}

}  // namespace
}  // namespace iofab::testing
