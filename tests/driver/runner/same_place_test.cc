// Issue 42 item 7: every setting that decides where bytes go is part of the ranks' agreement. Ranks that
// resolve one target to two places (each node's own AWS_ENDPOINT_URL; a folder path whose symlink leads
// elsewhere) are refused on every rank alike, naming the setting, the ranks and both values.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "driver/runner/same_run.h"
#include "driver/suite/suite.h"
#include "driver/targets/folder/folder_target.h"
#include "test_util.h"
#include "thread_comm.h"

namespace iofab {
namespace {

RunIdentity s3_place(const std::string& endpoint, const std::string& region = "\"us-east-1\"") {
  return RunIdentity{{{"s3 endpoint", "\"" + endpoint + "\""},
                      {"s3 region", region},
                      {"s3 addressing", "path"},
                      {"s3 bucket", "\"bench\""}}};
}

TEST(SamePlace, RanksThatResolveTheSamePlacePass) {
  EXPECT_TRUE(
      compare_run_places({s3_place("http://127.0.0.1:9000"), s3_place("http://127.0.0.1:9000")}).ok());
  EXPECT_TRUE(compare_run_places({RunIdentity{}, RunIdentity{}}).ok());
}

TEST(SamePlace, EachSettingThatDiffersIsNamedWithTheRanksAndBothValues) {
  const Status s = compare_run_places({s3_place("http://127.0.0.1:9000"), s3_place("http://127.0.0.1:9001"),
                                       s3_place("http://127.0.0.1:9000", "\"eu-west-1\"")});
  ASSERT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_TRUE(testing::contains(s.message(), "the target resolves to different places")) << s.message();
  EXPECT_TRUE(testing::contains(
      s.message(), "s3 endpoint: rank 1 has \"http://127.0.0.1:9001\"; rank 0 has \"http://127.0.0.1:9000\""))
      << s.message();
  EXPECT_TRUE(testing::contains(s.message(), "s3 region: rank 2 has \"eu-west-1\"; rank 0 has \"us-east-1\""))
      << s.message();
  EXPECT_TRUE(testing::contains(s.message(), "nothing was written")) << s.message();
}

TEST(SamePlace, EveryRankLeavesWithTheSameVerdict) {
  std::vector<Status> got(3);
  testing::run_ranks(3, [&](Comm& comm) {
    const std::string port = comm.rank() == 2 ? "9001" : "9000";
    got[static_cast<size_t>(comm.rank())] = agree_same_place(comm, s3_place("http://127.0.0.1:" + port));
  });
  for (const Status& s : got) {
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s.message();
    EXPECT_TRUE(testing::contains(s.message(), "s3 endpoint: rank 2 has \"http://127.0.0.1:9001\""))
        << s.message();
  }
}

// A folder's place is its path with the symlinks resolved; with target_scope "host" each host measures
// its own folder on purpose, so it is not compared.
TEST(SamePlace, AFolderTargetsPlaceIsItsRealPath) {
  testing::TempDir dir("/dev/shm");
  std::filesystem::create_directories(dir.path() + "/real");
  ASSERT_EQ(symlink((dir.path() + "/real").c_str(), (dir.path() + "/link").c_str()), 0);
  Suite suite;
  auto t = make_folder_target(dir.path() + "/link", suite);
  ASSERT_TRUE(t->check().ok());
  const auto place = t->placement();
  ASSERT_EQ(place.size(), 1u);
  EXPECT_EQ(place[0].first, "target's real path");
  EXPECT_EQ(place[0].second, "\"" + std::filesystem::canonical(dir.path() + "/real").string() + "\"");
  suite.target_scope = TargetScope::kHost;
  auto host = make_folder_target(dir.path() + "/link", suite);
  ASSERT_TRUE(host->check().ok());
  EXPECT_TRUE(host->placement().empty());
}

}  // namespace
}  // namespace iofab
