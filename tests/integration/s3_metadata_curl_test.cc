// `iofab run` of the metadata phase on an s3:// target against a real s3rver: what an object store can do
// runs, a request an operation (create a PUT, stat a HEAD, read a GET, list a paged LIST of the prefix,
// remove a DELETE), counted exactly; what it cannot (mkdir, open, rename, rmdir) is a note per step, and a
// suite of nothing else is refused naming the field; nothing is left in the bucket.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "integration/s3_cli.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

struct MdRun {
  CommandResult cmd;
  json report;
  const json& metrics() const { return report["phases"][0]["result"]["metrics"]; }
  const json& result() const { return report["phases"][0]["result"]; }
};

MdRun run_md(const S3rver& srv, const json& params, const std::vector<std::string>& extra = {}) {
  RunFiles f("/dev/shm");
  json phase = params;
  phase["kind"] = "metadata";
  phase["name"] = "md";
  write_file(f.suite, s3_suite(srv, "s3://bench/runs", phase));
  std::vector<std::string> args = {"run", f.suite, "--out", f.report, "-q"};
  args.insert(args.end(), extra.begin(), extra.end());
  MdRun r;
  r.cmd = run_iofab(args);
  r.report = json::parse(read_file(f.report), nullptr, false);
  return r;
}

TEST(S3Metadata, EveryStepAnObjectStoreCanDoIsARequestAnObjectCountedExactlyAndTheRestAreNotes) {
  IOFAB_START_S3RVER(srv, "bench");
  use_s3_credentials(kS3rverKeyId);
  // 40 objects of 3,901 bytes in 2 leaf prefixes (md/rank0/d0/, md/rank0/d1/), every step asked for.
  const MdRun r = run_md(
      *srv,
      {{"files_per_rank", 40}, {"workers", 2}, {"file_size", 3901}, {"dirs_per_level", 2}, {"depth", 1}});
  ASSERT_EQ(r.cmd.exit_code, 0) << r.cmd.err << r.cmd.out;
  const json& m = r.metrics();
  for (const char* step : {"create", "stat", "read", "list", "remove"}) {
    EXPECT_EQ(m[std::string(step) + "_ops"], 40) << step;
    EXPECT_EQ(m[std::string(step) + "_errors"], 0) << step;
    EXPECT_GT(m[std::string(step) + "_ops_per_s"].get<double>(), 0) << step;
  }
  for (const char* step : {"mkdir", "open", "rename", "rmdir"})
    EXPECT_FALSE(m.contains(std::string(step) + "_ops")) << step;
  const json& skipped = r.result()["details"]["skipped_on_object_store"];
  EXPECT_EQ(skipped.size(), 4u) << skipped.dump();
  EXPECT_NE(skipped["rename"].get<std::string>().find("no rename"), std::string::npos) << skipped.dump();
  bool noted = false;
  for (const auto& w : r.report["phases"][0]["warnings"])
    noted = noted || w.get<std::string>().find("skipped on an object store: mkdir, open, rename, rmdir") !=
                         std::string::npos;
  EXPECT_TRUE(noted) << r.report["phases"][0]["warnings"].dump();
  // 40 PUTs, 40 HEADs, 40 GETs, a LIST of each leaf prefix, 40 DELETEs (the phase's folder removed after,
  // not counted: a LIST of what is left below it, nothing, and a DELETE of its own name).
  EXPECT_EQ(m["requests"], 40 * 4 + 2);
  EXPECT_EQ(m["request_errors"], 0);
  EXPECT_TRUE(bucket_keys(*srv).empty());
}

TEST(S3Metadata, CreateMakesOneObjectAFileOfItsSizeBelowItsLeafPrefix) {
  IOFAB_START_S3RVER(srv, "bench");
  use_s3_credentials(kS3rverKeyId);
  const MdRun r = run_md(*srv,
                         {{"files_per_rank", 30},
                          {"file_size", 100},
                          {"dirs_per_level", 3},
                          {"depth", 1},
                          {"steps", {"create"}}},
                         {"--keep"});
  ASSERT_EQ(r.cmd.exit_code, 0) << r.cmd.err << r.cmd.out;
  EXPECT_EQ(r.metrics()["create_ops"], 30);
  size_t objects = 0;
  for (const S3Object& o : bucket_objects(*srv)) {
    if (o.key.find("/md/") == std::string::npos) continue;
    ++objects;
    EXPECT_EQ(o.size, 100u) << o.key;
    EXPECT_NE(o.key.find("/md/rank0/d"), std::string::npos) << o.key;
  }
  EXPECT_EQ(objects, 30u);
}

TEST(S3Metadata, AListOfMoreKeysThanAPageHoldsFollowsTheContinuation) {
  IOFAB_START_S3RVER(srv, "bench");
  use_s3_credentials(kS3rverKeyId);
  // S3 lists at most 1,000 keys a page: 1,001 empty objects in one prefix need two pages.
  const MdRun r =
      run_md(*srv, {{"files_per_rank", 1001}, {"workers", 4}, {"steps", {"create", "list", "remove"}}});
  ASSERT_EQ(r.cmd.exit_code, 0) << r.cmd.err << r.cmd.out;
  EXPECT_EQ(r.metrics()["create_ops"], 1001);
  EXPECT_EQ(r.metrics()["list_ops"], 1001);
  EXPECT_EQ(r.metrics()["remove_ops"], 1001);
  EXPECT_EQ(r.metrics()["requests"], 1001 + 2 + 1001);  // the list's two pages
  EXPECT_TRUE(bucket_keys(*srv).empty());
}

TEST(S3Metadata, ASuiteOfOnlyStepsAnObjectStoreCannotDoIsRefusedNamingTheField) {
  IOFAB_START_S3RVER(srv, "bench");
  use_s3_credentials(kS3rverKeyId);
  const MdRun r = run_md(*srv, {{"steps", {"mkdir", "rmdir"}}});
  EXPECT_EQ(r.cmd.exit_code, 2) << r.cmd.err << r.cmd.out;
  EXPECT_NE(r.cmd.err.find("phases.md.steps: none of them runs on an object store"), std::string::npos)
      << r.cmd.err;
  EXPECT_NE(r.cmd.err.find("expected at least one of create, stat, read, list, remove"), std::string::npos)
      << r.cmd.err;
  const MdRun f = run_md(*srv, {{"fsync", true}});
  EXPECT_EQ(f.cmd.exit_code, 2) << f.cmd.err;
  EXPECT_NE(f.cmd.err.find("phases.md.fsync"), std::string::npos) << f.cmd.err;
  EXPECT_TRUE(bucket_keys(*srv).empty());  // refused before anything was written
}

}  // namespace
}  // namespace iofab::testing
