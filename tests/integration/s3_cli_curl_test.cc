// `iofab run` on an s3:// target against a real s3rver: the ingest phase's
// objects, its request figures, the errors a person reads, and that a run
// writes and deletes only below its own run prefix.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include <nlohmann/json.hpp>

#include "harness/s3/s3_uploads.h"
#include "integration/s3_cli.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

const json kIngest = {{"kind", "ingest"}, {"workers", 2}, {"files_per_worker", 2}, {"file_size", "6MiB"},
                      {"block_size", "1MiB"}, {"queue_depth", 4}};

TEST(S3Cli, IngestPutsObjectsReportsRequestFiguresAndLeavesOnlyWhatWasThere) {
  IOFAB_START_S3RVER(srv, "bench");
  use_s3_credentials(kS3rverKeyId);
  ASSERT_TRUE(s3_upload(*s3_test_client(*srv), "runs/keep-me", "x", 8 << 20, 1).ok());
  RunFiles f("/dev/shm");
  write_file(f.suite, s3_suite(*srv, "s3://bench/runs", kIngest));
  CommandResult r = run_iofab({"run", f.suite, "--out", f.report});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const std::string text = read_file(f.report);
  const json rep = json::parse(text);
  const json& m = rep["phases"][0]["result"]["metrics"];
  EXPECT_EQ(m["write_bytes"], 4.0 * (6 << 20));
  // Per object: the create's listing, begin, 2 parts, complete.
  EXPECT_EQ(m["requests"], 4 * 5);
  EXPECT_GT(m["requests_per_s"].get<double>(), 0);
  EXPECT_GT(m["ttfb_p50_s"].get<double>(), 0);
  EXPECT_GE(m["request_latency_p99_s"].get<double>(), m["ttfb_p50_s"].get<double>());
  EXPECT_EQ(m["retries"], 0);
  EXPECT_EQ(m["request_errors"], 0);
  EXPECT_EQ(rep["target"]["fs_type"], "s3");
  EXPECT_EQ(rep["target"]["path"], "s3://bench/runs");
  // The run prefix is gone, what was there before stays.
  EXPECT_EQ(bucket_keys(*srv), std::vector<std::string>{"runs/keep-me"});
  // Neither the report nor the console carries the secret.
  EXPECT_EQ(text.find(kS3TestSecret), std::string::npos);
  EXPECT_EQ(r.out.find(kS3TestSecret), std::string::npos);
  EXPECT_EQ(r.err.find(kS3TestSecret), std::string::npos);
}

TEST(S3Cli, InjectedSlowDownIsRetriedAndCountedInTheReport) {
  IOFAB_START_S3RVER(srv, "bench");
  use_s3_credentials(kS3rverKeyId);
  RunFiles f("/dev/shm");
  json one = kIngest;
  one["workers"] = 1;
  one["files_per_worker"] = 1;
  write_file(f.suite, s3_suite(*srv, "s3://bench/runs", one));
  // The target's probe listing passes; then 3 of the phase's requests answer 503 SlowDown.
  ASSERT_TRUE(srv->inject(503, "SlowDown", 3, 1).ok());
  CommandResult r = run_iofab({"run", f.suite, "--out", f.report, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json rep = json::parse(read_file(f.report));
  const json& res = rep["phases"][0]["result"];
  EXPECT_EQ(res["metrics"]["retries"], 3);
  EXPECT_EQ(res["metrics"]["request_errors"], 0);
  EXPECT_EQ(res["details"]["requests"]["retried_by_status"]["503"], 3);
}

TEST(S3Cli, WrongKeyIdExits3WithThe403ReasonAndNeverTheSecret) {
  IOFAB_START_S3RVER(srv, "bench");
  setenv("AWS_ACCESS_KEY_ID", "AKIANOTAKEY", 1);
  setenv("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI-this-is-the-secret", 1);
  RunFiles f("/dev/shm");
  write_file(f.suite, s3_suite(*srv, "s3://bench/runs", kIngest));
  CommandResult r = run_iofab({"run", f.suite, "--out", f.report});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("HTTP 403"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("key id AKIANOTAKEY"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("credentials"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("this-is-the-secret"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("this-is-the-secret"), std::string::npos);
  EXPECT_TRUE(bucket_keys(*srv).empty());
}

TEST(S3Cli, BadS3SettingsExit2NamingTheFieldAndWriteNothing) {
  IOFAB_START_S3RVER(srv, "bench");
  use_s3_credentials(kS3rverKeyId);
  RunFiles f("/dev/shm");
  struct Case {
    std::string target;
    json extra;
    std::string says;
  };
  const Case cases[] = {
      {"s3://bench", json::object(), "s3.allow_bucket_root: true"},
      {"s3://bench/runs", {{"endpoint", "127.0.0.1:9000"}}, "s3.endpoint \"127.0.0.1:9000\": expected http://host"},
      {"s3://bench/runs", {{"part_size", "1MiB"}}, "s3.part_size: expected a size from 5MiB to 5GiB"},
      {"s3://bench/runs", {{"addressing", "vhost"}}, "s3.addressing \"vhost\": expected \"path\" or \"virtual\""},
      {"s3://bench/runs", {{"connections", 0}}, "s3.connections: expected an integer 1..1024"},
      {"s3://Bad_Bucket/x", json::object(), "expected s3://bucket/prefix"},
      {"s3://bench/runs", {{"endpoint", ""}}, "s3.endpoint \"\": expected http://host"},
  };
  for (const Case& c : cases) {
    write_file(f.suite, s3_suite(*srv, c.target, kIngest, c.extra));
    CommandResult r = run_iofab({"run", f.suite, "--out", f.report, "-q"});
    EXPECT_EQ(r.exit_code, 2) << c.says << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
  }
  // A descriptor engine on an object store is refused by the field.
  json psync = kIngest;
  psync["engine"] = "psync";
  write_file(f.suite, s3_suite(*srv, "s3://bench/runs", psync));
  CommandResult e = run_iofab({"run", f.suite, "--out", f.report, "-q"});
  EXPECT_EQ(e.exit_code, 2) << e.err;
  EXPECT_NE(e.err.find("phases.ingest.engine: \"psync\" cannot reach an object store"), std::string::npos) << e.err;
  // train_read's dataset_dir is a folder on a filesystem: refused by the field before any phase runs (the
  // ingest before it writes nothing), and the folder is never made.
  const std::string dataset_dir = f.dir.path() + "/ds";
  json doc = json::parse(s3_suite(*srv, "s3://bench/runs", kIngest));
  doc["phases"].push_back({{"kind", "train_read"}, {"num_samples", 64}, {"dataset_dir", dataset_dir}});
  write_file(f.suite, doc.dump());
  CommandResult r = run_iofab({"run", f.suite, "--out", f.report, "-q"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("phases.train_read.dataset_dir \"" + dataset_dir + "\" is a folder on a filesystem"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dataset_dir));
  EXPECT_TRUE(bucket_keys(*srv).empty());
}

// The AWS settings a suite without s3.endpoint falls back to, set for one test and put back after.
struct AwsEndpointEnv {
  AwsEndpointEnv(const std::string& endpoint_url, const std::string& config_file) {
    for (const char* name : {"AWS_ENDPOINT_URL_S3", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE",
                             "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS"}) {
      unsetenv(name);
    }
    setenv("AWS_CONFIG_FILE", config_file.c_str(), 1);
    if (endpoint_url.empty()) {
      unsetenv("AWS_ENDPOINT_URL");
    } else {
      setenv("AWS_ENDPOINT_URL", endpoint_url.c_str(), 1);
    }
  }
  ~AwsEndpointEnv() {
    unsetenv("AWS_ENDPOINT_URL");
    unsetenv("AWS_CONFIG_FILE");
  }
};

TEST(S3Cli, ASuiteWithoutAnEndpointRunsOnAwsEndpointUrlAndTheReportSaysSo) {
  IOFAB_START_S3RVER(srv, "bench");
  use_s3_credentials(kS3rverKeyId);
  RunFiles f("/dev/shm");
  json doc = json::parse(s3_suite(*srv, "s3://bench/runs", kIngest));
  doc["s3"].erase("endpoint");
  write_file(f.suite, doc.dump());
  AwsEndpointEnv env(srv->endpoint(), f.dir.path() + "/no-aws-config");
  CommandResult r = run_iofab({"run", f.suite, "--out", f.report, "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const json rep = json::parse(read_file(f.report));
  EXPECT_EQ(rep["target"]["endpoint_source"], "AWS_ENDPOINT_URL");
  EXPECT_EQ(rep["target"]["mount_source"], srv->endpoint());
  EXPECT_EQ(rep["phases"][0]["result"]["metrics"]["write_bytes"], 4.0 * (6 << 20));
  EXPECT_TRUE(bucket_keys(*srv).empty());
}

TEST(S3Cli, NoEndpointAnywhereExits2NamingEveryPlaceLooked) {
  IOFAB_START_S3RVER(srv, "bench");
  use_s3_credentials(kS3rverKeyId);
  RunFiles f("/dev/shm");
  json doc = json::parse(s3_suite(*srv, "s3://bench/runs", kIngest));
  doc["s3"].erase("endpoint");
  write_file(f.suite, doc.dump());
  AwsEndpointEnv env("", f.dir.path() + "/no-aws-config");
  CommandResult r = run_iofab({"run", f.suite, "--out", f.report, "-q"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("no S3 endpoint: set s3.endpoint in the suite"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("AWS_ENDPOINT_URL"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(f.report));
}

// clean of an s3:// target: the objects and unfinished multipart uploads under run prefixes of iofab's
// naming below the target, and nothing else; a kept run's only with --include-kept; a list without --yes.
TEST(S3Cli, CleanRemovesOnlyWhatRunsLeftUnderTheirRunPrefixes) {
  IOFAB_START_S3RVER(srv, "bench");
  use_s3_credentials(kS3rverKeyId);
  auto c = s3_test_client(*srv);
  const std::string dead = "runs/iofab-20250101T000000Z-abcdef/",
                    kept = "runs/iofab-20250101T000001Z-123456/";
  for (const std::string& key :
       {dead + "ingest/r0-w0-f0", dead + "ingest/r0-w0-f1", kept + "iofab-kept",
        kept + "checkpoint/step-1/manifest.json", std::string("runs/keep-me"),
        std::string("runs/iofab-not-a-run/x"), std::string("other/iofab-20250101T000000Z-abcdef/x")}) {
    ASSERT_TRUE(s3_upload(*c, key, "x", 8 << 20, 1).ok()) << key;
  }
  S3Upload unfinished;
  ASSERT_TRUE(s3_begin_upload(*c, dead + "ingest/r0-w1-f0", &unfinished).ok());
  RunFiles f("/dev/shm");
  write_file(f.suite, s3_suite(*srv, "s3://bench/runs", kIngest));
  const std::vector<std::string> all_before = bucket_keys(*srv);

  // No endpoint: refused, saying how to give one.
  CommandResult r = run_iofab({"clean", "--target", "s3://bench/runs", "--yes"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("s3.endpoint"), std::string::npos) << r.err;

  // No --yes, no terminal: a list.
  r = run_iofab({"clean", "--target", "s3://bench/runs", "--set", "s3.endpoint=" + srv->endpoint()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("iofab-20250101T000000Z-abcdef/  2 objects"), std::string::npos) << r.out;
  // s3rver keeps no list of uploads (ListMultipartUploads: 501 NotImplemented): clean says so and goes on.
  const bool lists_uploads = r.out.find("does not list unfinished multipart uploads") == std::string::npos;
  if (lists_uploads) {
    EXPECT_NE(r.out.find("1 unfinished upload"), std::string::npos) << r.out;
  }
  EXPECT_NE(r.out.find("kept with --keep"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pass --yes"), std::string::npos) << r.out;
  EXPECT_EQ(bucket_keys(*srv), all_before);

  r = run_iofab({"clean", "--target", "s3://bench/runs", "--suite", f.suite, "--yes"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("removed s3://bench/runs/iofab-20250101T000000Z-abcdef/"), std::string::npos) << r.out;
  EXPECT_EQ(bucket_keys(*srv),
            (std::vector<std::string>{"other/iofab-20250101T000000Z-abcdef/x",
                                      "runs/iofab-20250101T000001Z-123456/checkpoint/step-1/manifest.json",
                                      "runs/iofab-20250101T000001Z-123456/iofab-kept",
                                      "runs/iofab-not-a-run/x", "runs/keep-me"}));
  std::vector<S3Upload> uploads;
  if (lists_uploads) {
    ASSERT_TRUE(s3_list_uploads(*c, "runs/", &uploads).ok());
    EXPECT_TRUE(uploads.empty()) << "the unfinished upload was not aborted";
  }

  r = run_iofab({"clean", "--target", "s3://bench/runs", "--suite", f.suite, "--yes", "--include-kept"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(bucket_keys(*srv), (std::vector<std::string>{"other/iofab-20250101T000000Z-abcdef/x",
                                                         "runs/iofab-not-a-run/x", "runs/keep-me"}));
}

TEST(S3Cli, ARefusedConnectionNamesTheEndpoint) {
  IOFAB_START_S3RVER(srv, "bench");
  use_s3_credentials(kS3rverKeyId);
  RunFiles f("/dev/shm");
  // Port 1 on loopback: nothing listens there.
  write_file(f.suite, s3_suite(*srv, "s3://bench/runs", kIngest, {{"endpoint", "http://127.0.0.1:1"}, {"max_retries", 0}}));
  CommandResult r = run_iofab({"run", f.suite, "--out", f.report, "-q"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("cannot connect to endpoint http://127.0.0.1:1"), std::string::npos) << r.err;
}

// A checkpoint of a 1e9-parameter model at 1/1000 (14 MB: objects above one 5 MiB part) written twice,
// then restored with fan-out 4: every byte read back by ranged GETs and verified against the manifest.
TEST(S3Cli, CheckpointCommitsByItsManifestAndRestoreVerifiesEveryByte) {
  IOFAB_START_S3RVER(srv, "bench");
  use_s3_credentials(kS3rverKeyId);
  RunFiles f("/dev/shm");
  json doc = json::parse(s3_suite(*srv, "s3://bench/ckpt", json::object()));
  doc["defaults"] = {{"workers", 2}, {"block_size", "1MiB"}, {"queue_depth", 4}};
  doc["phases"] = json::array(
      {{{"kind", "checkpoint"}, {"params", 1e9}, {"scale", 1000}, {"count", 2}, {"gap", "10ms"}, {"interval", "1000h"}},
       {{"kind", "restore"}, {"fanout", 4}, {"checks", json::array({{{"metric", "corrupt_shards"}, {"op", "=="}, {"value", 0}}})}}});
  write_file(f.suite, doc.dump(2));
  CommandResult r = run_iofab({"run", f.suite, "--out", f.report, "-q", "--keep"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const json rep = json::parse(read_file(f.report));
  const json& w = rep["phases"][0];
  const json& rd = rep["phases"][1];
  EXPECT_EQ(w["status"], "passed") << w.dump();
  EXPECT_EQ(rd["status"], "passed") << rd.dump();
  const double written = w["result"]["metrics"]["checkpoint_bytes"].get<double>();
  EXPECT_GT(written, 5 << 20);
  EXPECT_EQ(rd["result"]["metrics"]["read_bytes"].get<double>(), 4 * written);
  EXPECT_EQ(rd["result"]["metrics"]["corrupt_shards"], 0);
  // Both phases carry the requests' figures: the restore's GETs, the checkpoint's parts and manifests.
  EXPECT_GT(w["result"]["metrics"]["requests"].get<double>(), 0);
  EXPECT_GT(rd["result"]["metrics"]["requests"].get<double>(), 0);
  EXPECT_GT(rd["result"]["metrics"]["ttfb_p50_s"].get<double>(), 0);
  EXPECT_EQ(rd["result"]["metrics"]["request_errors"], 0);
  // --keep: what is left is the newest step (rotation deleted step 1 after step 2 committed): its shard
  // objects and its manifest object, nothing else.
  const std::string run = rep["target"]["run_folder"].get<std::string>().substr(std::string("s3://bench/").size());
  const std::vector<std::string> ks = bucket_keys(*srv);
  ASSERT_FALSE(ks.empty());
  size_t manifests = 0;
  for (const auto& k : ks) {
    if (k == run + "/iofab-kept") continue;  // the kept mark: `iofab clean` leaves the prefix
    EXPECT_EQ(k.rfind(run + "/checkpoint/step-2/", 0), 0u) << k;
    manifests += k.ends_with("/manifest.json");
  }
  EXPECT_EQ(manifests, 1u);
  EXPECT_EQ(w["result"]["metrics"]["checkpoints"], 2);
}

// The S3 requests the server has seen so far.
uint64_t requests_seen(S3rver& srv) {
  std::string stats;
  if (!srv.stats(&stats).ok()) return 0;
  return json::parse(stats, nullptr, false).value("requests", uint64_t{0});
}

TEST(S3InterruptAt, MidUploadLeavesNoKeysUnderTheRunPrefix) {
  IOFAB_START_S3RVER(srv, "bench");
  use_s3_credentials(kS3rverKeyId);
  RunFiles f("/dev/shm");
  json big = kIngest;
  big["workers"] = 1;
  big["files_per_worker"] = 1;
  big["file_size"] = "64GiB";  // far more than the test waits for: the signal comes mid-upload
  write_file(f.suite, s3_suite(*srv, "s3://bench/runs", big));
  const std::string out = f.dir.path() + "/out.txt";
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const int fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    execl(IOFAB_BINARY, IOFAB_BINARY, "run", f.suite.c_str(), "--out", f.report.c_str(), "--quiet",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  // The probe's listing, the create's listing, the upload's begin, then parts: wait for a part or two.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (requests_seen(*srv) < 5 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_GE(requests_seen(*srv), 5u) << read_file(out);
  ASSERT_EQ(kill(pid, SIGINT), 0);
  int status = 0;
  ASSERT_TRUE(wait_for_exit(pid, std::chrono::seconds(60), &status)) << read_file(out);
  ASSERT_TRUE(WIFEXITED(status)) << read_file(out);
  EXPECT_EQ(WEXITSTATUS(status), 130) << read_file(out);
  const json rep = json::parse(read_file(f.report));
  EXPECT_EQ(rep["phases"][0]["status"], "interrupted");
  // The upload was aborted and the run prefix deleted: nothing of the run is left in the bucket.
  EXPECT_TRUE(bucket_keys(*srv).empty());
}

}  // namespace
}  // namespace iofab::testing
