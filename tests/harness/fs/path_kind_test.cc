// What a folder param's suite-load check asks (harness/fs/path_kind.h): what a path names, and whether
// two paths are one folder, however spelled.
#include "harness/fs/path_kind.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "test_util.h"

namespace iofab {
namespace {

using testing::TempDir;
using testing::write_file;

TEST(PathKind, NamesWhatIsThere) {
  TempDir d;
  write_file(d.path() + "/f", "x");
  EXPECT_EQ(path_kind(d.path()), PathKind::kFolder);
  EXPECT_EQ(path_kind(d.path() + "/f"), PathKind::kOther);
  EXPECT_EQ(path_kind(d.path() + "/none"), PathKind::kMissing);
  EXPECT_EQ(path_kind("/dev/null"), PathKind::kDevice);
  // A link is followed, as opening the path would.
  std::filesystem::create_directory_symlink(d.path(), d.path() + "/link");
  EXPECT_EQ(path_kind(d.path() + "/link"), PathKind::kFolder);
}

TEST(PathKind, OneFolderHoweverSpelled) {
  TempDir d;
  std::filesystem::create_directory(d.path() + "/a");
  std::filesystem::create_directory(d.path() + "/b");
  std::filesystem::create_directory_symlink(d.path() + "/a", d.path() + "/to_a");
  EXPECT_TRUE(same_folder(d.path() + "/a", d.path() + "/b/../a"));
  EXPECT_TRUE(same_folder(d.path() + "/a", d.path() + "/to_a"));
  EXPECT_TRUE(same_file(d.path() + "/a", d.path() + "/to_a"));
  EXPECT_FALSE(same_folder(d.path() + "/a", d.path() + "/b"));
  // Not there: only the spelling can say, and the disk says no.
  EXPECT_TRUE(same_folder("/no/such/x", "/no/such/y/../x"));
  EXPECT_FALSE(same_file("/no/such/x", "/no/such/x"));
  EXPECT_EQ(parent_path("/a/b/c"), "/a/b");
  EXPECT_EQ(parent_path("c"), "");
}

}  // namespace
}  // namespace iofab
