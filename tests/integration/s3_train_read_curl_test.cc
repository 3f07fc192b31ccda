// `iofab run` of train_read on an s3:// target against a real s3rver: the
// dataset generated as objects below the run prefix (one per shard or per
// sample file, the manifest beside them), read back over several shuffled
// epochs with prefetch, every sample verified, one GET per sample per epoch
// (a ranged GET of a shard, or a GET of the sample's own object), a 503
// retried, the cache tier in front of S3, and nothing left in the bucket.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/core/json_input.h"
#include "integration/s3_cli.h"
#include "workloads/dataset/dataset.h"
#include "workloads/dataset/dataset_manifest.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

// 96 samples of lognormal sizes around 12 KiB: shards of 16 samples, or one object each in folders of 16.
json train_phase(const std::string& layout, uint64_t epochs) {
  return {{"kind", "train_read"},       {"layout", layout},          {"num_samples", 96},
          {"sample_size", "12KiB"},     {"sample_size_distribution", "lognormal"},
          {"sample_size_stdev", "4KiB"}, {"samples_per_shard", 16},   {"files_per_dir", 16},
          {"batch_size", 8},            {"epochs", epochs},          {"read_threads", 2},
          {"queue_depth", 4},           {"prefetch", 3},             {"file_shuffle", "seed"},
          {"sample_shuffle", "random"}};
}

struct TrainRun {
  CommandResult cmd;
  json report;
  const json& phase() const { return report["phases"][0]; }
  const json& metrics() const { return report["phases"][0]["result"]["metrics"]; }
  const json& details() const { return report["phases"][0]["result"]["details"]; }
  // The run's prefix in the bucket ("runs/iofab-<run id>").
  std::string prefix() const {
    return report["target"]["run_folder"].get<std::string>().substr(std::string("s3://bench/").size());
  }
};

TrainRun run_train(const S3rver& srv, const RunFiles& f, const json& phase,
                   const std::vector<std::string>& extra = {}) {
  write_file(f.suite, s3_suite(srv, "s3://bench/runs", phase));
  std::vector<std::string> args = {"run", f.suite, "--out", f.report, "-q"};
  args.insert(args.end(), extra.begin(), extra.end());
  TrainRun r;
  r.cmd = run_iofab(args);
  r.report = json::parse(read_file(f.report), nullptr, false);
  return r;
}

double num(const json& j, const char* key) { return j.at(key).get<double>(); }

class S3TrainRead : public ::testing::TestWithParam<std::string> {};

TEST_P(S3TrainRead, EveryEpochReadsEverySampleWithOneGetAndVerifiesIt) {
  IOFAB_START_S3RVER(srv, "bench");
  use_s3_credentials(kS3rverKeyId);
  RunFiles f("/dev/shm");
  const TrainRun r = run_train(*srv, f, train_phase(GetParam(), 3));
  ASSERT_EQ(r.cmd.exit_code, 0) << r.cmd.err << r.cmd.out;
  ASSERT_TRUE(r.report.is_object());
  EXPECT_EQ(r.phase()["status"], "passed") << r.phase().dump();
  const json& m = r.metrics();
  const json& d = r.details();
  EXPECT_EQ(d["engine"], "s3");
  EXPECT_TRUE(d["verified"].get<bool>());
  EXPECT_EQ(d["dataset"]["origin"], "generated");
  // Every sample of every epoch read once, its header checked, the bytes the plan said.
  EXPECT_EQ(num(m, "epochs"), 3);
  EXPECT_EQ(num(m, "samples"), 3 * 96);
  EXPECT_EQ(num(m, "corrupt_samples"), 0);
  EXPECT_TRUE(d["every_sample_once"].get<bool>());
  const double sample_bytes = d["dataset"]["sample_bytes"].get<double>();
  EXPECT_GT(sample_bytes, 96 * 4096.0);
  EXPECT_EQ(num(m, "read_bytes"), 3 * sample_bytes);
  EXPECT_EQ(num(m, "dataset_read_bytes"), 3 * sample_bytes);
  for (const json& e : d["epochs"]) {
    EXPECT_TRUE(e["sample_ids"]["every_planned_sample_once"].get<bool>()) << e["epoch"];
    EXPECT_EQ(e["samples"], 96) << e["epoch"];
  }
  // One GET per sample per epoch and nothing else while the epochs ran: a ranged GET of the sample's
  // bytes in its shard, or a GET of the sample's own object. Retries (s3rver may answer 500 under
  // load) are the only extra tries.
  EXPECT_EQ(num(m, "requests") - num(m, "retries"), num(m, "samples"));
  EXPECT_EQ(num(m, "request_errors"), 0);
  EXPECT_GT(num(m, "requests_per_s"), 0);
  EXPECT_GT(num(m, "ttfb_p50_s"), 0);
  EXPECT_GE(num(m, "request_latency_p99_s"), num(m, "ttfb_p50_s"));
  // The bodies received are the samples' bytes, no padding and no whole shard.
  const double received = d["requests"]["bytes_received"].get<double>();
  EXPECT_GE(received, num(m, "read_bytes"));
  if (num(m, "retries") == 0) {
    EXPECT_EQ(received, num(m, "read_bytes"));
  }
  // Generating the dataset: at least a listing and a PUT for each object, counted apart.
  const double files = d["dataset"]["files"].get<double>();
  EXPECT_EQ(files, GetParam() == "files" ? 96 : 6);
  EXPECT_GE(d["generate_requests"]["requests"].get<double>(), 2 * files);
  EXPECT_EQ(d["generate_requests"]["request_errors"], 0);
  // No page cache on an object store: said once, and no warning about device counters or memory.
  EXPECT_NE(d["page_cache"].get<std::string>().find("object store"), std::string::npos);
  for (const auto& w : r.phase()["warnings"]) {
    EXPECT_EQ(w.get<std::string>().find("page cache"), std::string::npos) << w;
    EXPECT_EQ(w.get<std::string>().find("device_read_bytes"), std::string::npos) << w;
  }
  // The run's prefix is gone: no dataset object, no manifest left.
  EXPECT_TRUE(bucket_keys(*srv).empty());
}

// With --keep the dataset stays: one object per shard or sample file below the phase's data/, of the
// layout's sizes, the first sample's header at the start of the first, and the manifest complete.
TEST_P(S3TrainRead, KeepLeavesOneObjectPerFileAndACompleteManifest) {
  IOFAB_START_S3RVER(srv, "bench");
  use_s3_credentials(kS3rverKeyId);
  RunFiles f("/dev/shm");
  const TrainRun r = run_train(*srv, f, train_phase(GetParam(), 1), {"--keep"});
  ASSERT_EQ(r.cmd.exit_code, 0) << r.cmd.err << r.cmd.out;
  const std::string base = r.prefix() + "/train_read/";
  double object_bytes = 0;
  size_t data_objects = 0;
  std::string first_data_key;
  for (const S3Object& o : bucket_objects(*srv)) {
    if (o.key == r.prefix() + "/iofab-kept") continue;  // the kept mark: `iofab clean` leaves the prefix
    ASSERT_EQ(o.key.rfind(base, 0), 0u) << o.key;
    const std::string rest = o.key.substr(base.size());
    if (rest == kManifestName) continue;
    ASSERT_EQ(rest.rfind("data/", 0), 0u) << o.key;
    ++data_objects;
    object_bytes += static_cast<double>(o.size);
    if (first_data_key.empty() || o.key < first_data_key) first_data_key = o.key;
  }
  const json& d = r.details();
  EXPECT_EQ(static_cast<double>(data_objects), d["dataset"]["files"].get<double>());
  EXPECT_EQ(object_bytes, d["dataset"]["bytes"].get<double>());

  auto c = s3_test_client(*srv);
  std::string text(1 << 16, '\0');
  uint64_t got = 0;
  ASSERT_TRUE(s3_get_range(*c, base + kManifestName, 0, text.data(), text.size(), &got).ok());
  text.resize(got);
  json manifest;
  ASSERT_TRUE(parse_json_input(text, {}, &manifest).ok()) << text;
  EXPECT_EQ(manifest["complete"], true);
  DatasetSpec spec;
  ASSERT_TRUE(spec_from_json(manifest["spec"], &spec)) << text;
  unsigned char want[kSampleHeader], head[kSampleHeader] = {};
  sample_header(spec, 0, want);
  ASSERT_TRUE(s3_get_range(*c, first_data_key, 0, reinterpret_cast<char*>(head), kSampleHeader, &got).ok());
  EXPECT_EQ(got, kSampleHeader);
  EXPECT_EQ(std::memcmp(head, want, kSampleHeader), 0) << first_data_key;
}

INSTANTIATE_TEST_SUITE_P(Layouts, S3TrainRead, ::testing::Values("shards", "files"),
                         [](const auto& p) { return p.param; });

// Three 503 SlowDown answers to the epochs' GETs are retried: the phase passes with every sample
// verified, and the retries show in the epochs' figures, none in the generation's.
TEST(S3TrainReadFaults, InjectedSlowDownOnGetsIsRetriedAndCounted) {
  IOFAB_START_S3RVER(srv, "bench");
  use_s3_credentials(kS3rverKeyId);
  RunFiles f("/dev/shm");
  // A first run counts the requests before the epochs: the runner's probe listing and the generation's
  // (tries, retried ones included). The faults come 10 requests past that: among the 96 GETs, even if
  // s3rver answers a few more 500s to the second run's generation.
  const TrainRun first = run_train(*srv, f, train_phase("shards", 1));
  ASSERT_EQ(first.cmd.exit_code, 0) << first.cmd.err;
  const auto before = first.details()["generate_requests"]["requests"].get<unsigned>() + 1;
  ASSERT_TRUE(srv->inject(503, "SlowDown", 3, before + 10).ok());
  const TrainRun r = run_train(*srv, f, train_phase("shards", 1));
  ASSERT_EQ(r.cmd.exit_code, 0) << r.cmd.err;
  const json& m = r.metrics();
  EXPECT_EQ(r.details()["requests"]["retried_by_status"]["503"], 3) << r.details()["requests"].dump();
  EXPECT_GE(num(m, "retries"), 3);
  EXPECT_EQ(num(m, "request_errors"), 0);
  EXPECT_EQ(num(m, "requests") - num(m, "retries"), num(m, "samples"));
  EXPECT_EQ(r.details()["generate_requests"]["retried_by_status"].count("503"), 0u);
  EXPECT_EQ(num(m, "corrupt_samples"), 0);
  EXPECT_TRUE(r.details()["every_sample_once"].get<bool>());
  EXPECT_TRUE(bucket_keys(*srv).empty());
}

// The cache tier in front of S3: epoch 0 reads every sample from S3 and fills a local cache_dir, later
// epochs read it all from the cache (no GET), the source-only epoch reads S3 again; the cache folder
// and the run prefix are gone at the end.
TEST(S3TrainReadCache, LaterEpochsComeFromTheLocalCacheAndMakeNoRequests) {
  IOFAB_START_S3RVER(srv, "bench");
  use_s3_credentials(kS3rverKeyId);
  RunFiles f("/dev/shm");
  TempDir cache("/dev/shm");
  json phase = train_phase("files", 3);
  phase["cache_dir"] = cache.path();
  phase["cache_source_epoch"] = true;
  const TrainRun r = run_train(*srv, f, phase);
  ASSERT_EQ(r.cmd.exit_code, 0) << r.cmd.err << r.cmd.out;
  EXPECT_EQ(r.phase()["status"], "passed") << r.phase().dump();
  const json& m = r.metrics();
  const json& d = r.details();
  EXPECT_EQ(d["engine"], "s3+psync");
  const double sample_bytes = d["dataset"]["sample_bytes"].get<double>();
  const json& e = d["epochs"];
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(e[0]["cache_tier"]["source_bytes"].get<double>(), sample_bytes);
  EXPECT_EQ(e[0]["cache_tier"]["cache_bytes"], 0);
  EXPECT_EQ(e[0]["cache_tier"]["filled_samples"], 96);
  for (size_t i = 1; i < 3; ++i) {
    EXPECT_EQ(e[i]["cache_tier"]["source_bytes"], 0) << i;
    EXPECT_EQ(e[i]["cache_tier"]["cache_bytes"].get<double>(), sample_bytes) << i;
  }
  EXPECT_EQ(num(m, "cache_hit_fraction"), 1.0);
  EXPECT_EQ(num(m, "corrupt_samples"), 0);
  const json& source = d["cache_tier"]["source_epoch"];
  EXPECT_EQ(source["source_bytes"].get<double>(), sample_bytes);
  EXPECT_EQ(source["cache_bytes"], 0);
  // GETs: epoch 0's and the source-only epoch's, one per sample each; epochs 1 and 2 sent none.
  EXPECT_EQ(num(m, "requests") - num(m, "retries"), 2 * 96);
  EXPECT_EQ(num(m, "dataset_read_bytes"), 2 * sample_bytes);
  EXPECT_TRUE(std::filesystem::is_empty(cache.path()));
  EXPECT_TRUE(bucket_keys(*srv).empty());
}

}  // namespace
}  // namespace iofab::testing
