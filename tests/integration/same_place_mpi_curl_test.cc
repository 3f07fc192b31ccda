// Issue 42 item 7: ranks that resolve different S3 endpoints (each node's own AWS_ENDPOINT_URL, tried
// with two s3rvers on 127.0.0.1) are out of step: every setting that decides where bytes go is part of
// the same-run agreement, and the run exits 2 before anything is written, naming the setting and each
// rank's value (before: an ingest passed, reporting two stores' bandwidth under one endpoint's name).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "integration/s3_cli.h"
#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

// `mpirun -np 1 env E0 iofab ARGS : -np 1 env E1 iofab ARGS`: each rank its own environment, as each
// node of a cluster has.
CommandResult mpmd_with_env(const std::string& env0, const std::string& env1,
                            const std::vector<std::string>& args) {
  std::vector<std::string> argv{"/usr/bin/timeout", "-s", "KILL", "60", IOFAB_MPIEXEC, "--allow-run-as-root",
                                "--oversubscribe"};
  const std::string envs[] = {env0, env1};
  for (size_t rank = 0; rank < 2; ++rank) {
    if (rank > 0) argv.push_back(":");
    argv.insert(argv.end(),
                {"-np", "1", "/usr/bin/env", "ASAN_OPTIONS=detect_leaks=0", envs[rank], IOFAB_BINARY});
    argv.insert(argv.end(), args.begin(), args.end());
  }
  return run_command(argv);
}

TEST(MpiSamePlace, RanksOnDifferentS3EndpointsExitTwoNamingBothBeforeWriting) {
  IOFAB_START_S3RVER(one, "bench");
  IOFAB_START_S3RVER(two, "bench");
  use_s3_credentials(kS3rverKeyId);
  for (const char* name : {"AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_PROFILE", "AWS_REGION",
                           "AWS_DEFAULT_REGION", "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"}) {
    unsetenv(name);
  }
  RunFiles f("/dev/shm");
  setenv("AWS_CONFIG_FILE", (f.dir.path() + "/no-config").c_str(), 1);
  const json ingest = {{"kind", "ingest"}, {"workers", 1}, {"files_per_worker", 1}, {"file_size", "1MiB"}};
  write_file(f.suite, json{{"name", "two-endpoints"},
                           {"target", "s3://bench/runs"},
                           {"s3", {{"part_size", "5MiB"}}},
                           {"phases", json::array({ingest})}}
                          .dump());
  const CommandResult r =
      mpmd_with_env("AWS_ENDPOINT_URL=" + one->endpoint(), "AWS_ENDPOINT_URL=" + two->endpoint(),
                    {"run", f.suite, "--out", f.report, "--quiet", "--rank-timeout", "120s"});
  unsetenv("AWS_CONFIG_FILE");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(contains(
      r.err, "s3 endpoint: rank 1 has \"" + two->endpoint() + "\"; rank 0 has \"" + one->endpoint() + "\""))
      << r.err;
  EXPECT_FALSE(contains(r.err + r.out, kS3TestSecret));
  EXPECT_TRUE(bucket_keys(*one).empty());
  EXPECT_TRUE(bucket_keys(*two).empty());
  EXPECT_FALSE(std::filesystem::exists(f.report)) << "nothing ran, so no report";
}

}  // namespace
}  // namespace iofab::testing
