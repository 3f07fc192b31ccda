// Suites that passed validation and then lied or failed late (issue 28): a check on a figure the engine
// never measures, a check on an object store's figure on a folder, keys past S3's 1,024 bytes, concurrent
// members that cannot run together, a resharding restore of a checkpoint with no tensor index, and
// virtual-host addressing with an IP endpoint. Each is refused when the suite is read (or its target is
// known), naming the JSON path.
#include <gtest/gtest.h>

#include <string>

#include "driver/suite/suite.h"
#include "driver/targets/run_target.h"
#include "test_util.h"

namespace iofab::testing {
namespace {

Status parse(const std::string& text, Suite* out) { return parse_suite(text, "test.json", {}, out); }

void expect_refused(const Status& st, const std::string& needle) {
  ASSERT_FALSE(st.ok()) << "accepted, expected: " << needle;
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_NE(st.message().find(needle), std::string::npos)
      << "missing: " << needle << "\nin: " << st.message();
}

void expect_suite_refused(const std::string& text, const std::string& needle) {
  Suite s;
  expect_refused(parse(text, &s), needle);
}

constexpr const char* kCkpt =
    R"({"kind": "checkpoint", "name": "ckpt", "engine": "psync", "checkpoint_size": "1MiB",
                                  "count": 1})";

// Engine null reads nothing: corrupt_shards == 0 would pass on a shard with flipped bytes.
TEST(SuiteChecks, AVerificationCheckWithEngineNullIsRefused) {
  expect_suite_refused(std::string(R"({"phases": [)") + kCkpt + R"(,
      {"kind": "restore", "engine": "null", "checks": [{"metric": "corrupt_shards", "op": "==", "value": 0}]}]})",
                       "phases[1].checks[0].metric: corrupt_shards is not measured with engine null");
  expect_suite_refused(
      R"({"defaults": {"engine": "null"}, "phases": [{"kind": "train_read", "num_samples": 64,
      "checks": [{"metric": "corrupt_samples", "op": "==", "value": 0}]}]})",
      "phases[0].checks[0].metric: corrupt_samples is not measured with engine null");
  expect_suite_refused(R"({"phases": [{"kind": "model_load", "engine": "null", "preset": "llama3-8b",
      "scale": 1000, "checks": [{"metric": "verified_bytes", "op": ">", "value": 0}]}]})",
                       "phases[0].checks[0].metric: verified_bytes is not measured with engine null");
  // A figure the null engine does measure, and the same check with an engine that reads, still pass.
  Suite ok;
  Status st = parse(std::string(R"({"phases": [)") + kCkpt + R"(,
      {"kind": "restore", "engine": "null", "checks": [{"metric": "read_bytes", "op": ">", "value": 0}]},
      {"kind": "restore", "name": "r2", "checks": [{"metric": "corrupt_shards", "op": "==", "value": 0}]}]})",
                    &ok);
  EXPECT_TRUE(st.ok()) << st.message();
}

// request_errors on a folder could only fail, "no value: phase failed", though the phase did not.
TEST(SuiteChecks, AnObjectStoreFigureOnAFolderTargetIsRefused) {
  Suite s;
  ASSERT_TRUE(parse(R"({"phases": [{"kind": "ingest", "file_size": "1MiB",
      "checks": [{"metric": "write_bytes_per_s", "value": "1MB/s"}, {"metric": "request_errors", "op": "==",
                  "value": 0}]}]})",
                    &s)
                  .ok());
  expect_refused(
      check_suite_for_target(s, "/var/tmp/t", 1),
      "phases[0].checks[1].metric: request_errors is a figure of an object store's requests, measured "
      "only on an s3:// target; the target /var/tmp/t is a folder");
  EXPECT_TRUE(check_suite_for_target(s, "s3://bench/runs", 1).ok());
}

TEST(SuiteChecks, APhaseKindThatDoesNotRunOnS3IsRefusedNamingTheKindsThatDo) {
  Suite s;
  ASSERT_TRUE(parse(R"({"phases": [{"kind": "prepare", "num_samples": 64}]})", &s).ok());
  expect_refused(
      check_suite_for_target(s, "s3://bench/runs", 1),
      "phase prepare: kind prepare does not run on an object store yet; on an s3:// target a suite "
      "holds ingest, train_read, checkpoint, restore, collectives, rdma and metadata phases");
  EXPECT_TRUE(check_suite_for_target(s, "/var/tmp/t", 1).ok());
}

// A prefix of 1,100 bytes: every key past S3's limit, found at the first PUT.
TEST(SuiteChecks, AKeyLongerThanS3TakesIsRefusedWithTheLongestPrefixThatFits) {
  Suite s;
  ASSERT_TRUE(
      parse(R"({"phases": [{"kind": "ingest", "file_size": "1MiB", "workers": 2, "files_per_worker": 3}]})",
            &s)
          .ok());
  const std::string long_prefix(1100, 'p');
  expect_refused(check_suite_for_target(s, "s3://bench/" + long_prefix, 1),
                 "S3 takes keys of at most 1024 bytes");
  // The longest key: <prefix>/iofab-<23-byte run id>/ingest/r3-w1-f2 at 4 ranks.
  const size_t tail = std::string("ingest/r3-w1-f2").size();
  const size_t fits = 1024 - 1 - (6 + 23) - 1 - tail;
  EXPECT_TRUE(check_suite_for_target(s, "s3://bench/" + std::string(fits, 'p'), 4).ok());
  expect_refused(check_suite_for_target(s, "s3://bench/" + std::string(fits + 1, 'p'), 4),
                 "expected a prefix of at most " + std::to_string(fits) + " bytes");
}

TEST(SuiteChecks, CheckpointAndTrainReadKeysCountTheirLongestPaths) {
  Suite s;
  ASSERT_TRUE(parse(std::string(R"({"phases": [)") +
                        R"({"kind": "checkpoint", "checkpoint_size": "1MiB", "count": 12},
      {"kind": "train_read", "num_samples": 1000, "layout": "files", "files_per_dir": 10}]})",
                    &s)
                  .ok());
  // checkpoint: step-12.tmp/shard-00000-of-00001.bin (one rank, one worker); train_read: data/dN/dN/sNNN.
  const size_t ckpt = std::string("checkpoint/step-12.tmp/shard-00000-of-00001.bin").size();
  const size_t room = 1024 - 1 - (6 + 23) - 1;
  EXPECT_TRUE(check_suite_for_target(s, "s3://bench/" + std::string(room - ckpt - 30, 'p'), 1).ok());
  expect_refused(check_suite_for_target(s, "s3://bench/" + std::string(room - ckpt + 1, 'p'), 1),
                 "phase checkpoint would make keys of up to 1025 bytes");
}

TEST(SuiteChecks, GroupMembersSharingADatasetDirAreRefused) {
  TempDir d;
  expect_suite_refused(R"({"phases": [{"concurrent": [
      {"kind": "train_read", "name": "a", "num_samples": 64, "dataset_dir": ")" +
                           d.path() + R"(/ds"},
      {"kind": "train_read", "name": "b", "num_samples": 64, "dataset_dir": ")" +
                           d.path() + R"(/./ds"}]}]})",
                       "phases[0].concurrent[1].dataset_dir: \"" + d.path() +
                           "/./ds\" is the dataset_dir of a, which runs at the same time");
  // One after the other, the second reuses the first's dataset: allowed.
  Suite s;
  Status st = parse(R"({"phases": [
      {"kind": "train_read", "name": "a", "num_samples": 64, "dataset_dir": ")" +
                        d.path() + R"(/ds"},
      {"kind": "train_read", "name": "b", "num_samples": 64, "dataset_dir": ")" +
                        d.path() + R"(/ds"}]})",
                    &s);
  EXPECT_TRUE(st.ok()) << st.message();
}

// "<name>.solo" must be a file name too: 251 to 255 bytes validated, then the solo run failed.
TEST(SuiteChecks, AGroupMemberNameWithNoRoomForDotSoloIsRefused) {
  const std::string name(251, 'n');
  const std::string group = R"({"phases": [{"concurrent": [
      {"kind": "collectives", "name": ")" +
                            name + R"("}, {"kind": "collectives", "name": "b"}]SOLO}]})";
  expect_suite_refused(
      std::string(group).replace(group.find("SOLO"), 4, ""),
      "phases[0].concurrent[0].name: 251 bytes; a phase of a group with solo runs has at most 250");
  Suite s;
  Status st = parse(std::string(group).replace(group.find("SOLO"), 4, R"(, "solo": false)"), &s);
  EXPECT_TRUE(st.ok()) << st.message();
}

// reshard_to failed only after the checkpoint was written: a shards layout keeps no tensor index.
TEST(SuiteChecks, LoadingTensorsFromACheckpointWithNoTensorIndexIsRefused) {
  expect_suite_refused(
      std::string(R"({"phases": [)") + kCkpt + R"(,
      {"kind": "restore", "reshard_to": {"tensor": 2}}]})",
      "phases[1].reshard_to: loads tensors, but checkpoint phase ckpt writes no tensor index: its "
      "layout is \"shards\"");
  expect_suite_refused(
      R"({"phases": [{"kind": "checkpoint", "name": "ck", "preset": "mlperf-llama3-8b",
      "layout": "dcp", "scale": 100000, "count": 1}, {"kind": "restore", "checkpoint": "ck", "weights_only": true}]})",
      "phases[1].weights_only: loads tensors, but checkpoint phase ck writes no tensor index: its "
      "model follows DLIO's rules");
  Suite s;
  Status st =
      parse(R"({"phases": [{"kind": "checkpoint", "name": "ck", "preset": "llama3-8b", "layout": "dcp",
      "scale": 100000, "count": 1}, {"kind": "restore", "reshard_to": {"data": 2}}]})",
            &s);
  EXPECT_TRUE(st.ok()) << st.message();
}

TEST(SuiteChecks, VirtualHostAddressingWithAnIpEndpointIsRefused) {
  for (const char* endpoint : {"http://127.0.0.1:9000", "http://[::1]:9000"}) {
    expect_suite_refused(std::string(R"({"s3": {"endpoint": ")") + endpoint +
                             R"(", "addressing": "virtual"}, "phases": [{"kind": "ingest"}]})",
                         std::string("s3.addressing: \"virtual\" puts the bucket in the endpoint's host name "
                                     "(<bucket>.<host>), but the endpoint ") +
                             endpoint + " is an IP address");
  }
  Suite s;
  Status st = parse(R"({"s3": {"endpoint": "http://[::1]:9000"}, "phases": [{"kind": "ingest"}]})", &s);
  EXPECT_TRUE(st.ok()) << st.message();
  st = parse(R"({"s3": {"endpoint": "http://s3.localhost:9000", "addressing": "virtual"},
                 "phases": [{"kind": "ingest"}]})",
             &s);
  EXPECT_TRUE(st.ok()) << st.message();
}

}  // namespace
}  // namespace iofab::testing
