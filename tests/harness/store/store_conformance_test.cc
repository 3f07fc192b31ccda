// Every Store keeps the same contract: these run on each implementation (the
// POSIX store on a real folder, the memory store, and in store_conformance_curl_test.cc
// the S3 store on s3rver), as the engine conformance suite does for engines.
// POSIX-only safety (symlinks) is at the end.
#include "harness/store_conformance.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "harness/store/memory_store.h"
#include "harness/store/posix_store.h"
#include "harness/store/store_folder.h"
#include "test_util.h"

namespace iofab::testing {
namespace {

TEST_P(StoreConformance, CreateNeverReplacesAFile) {
  ASSERT_TRUE(put("a", "first").ok());
  Status again = put("a", "second");
  EXPECT_FALSE(again.ok());
  EXPECT_NE(again.message().find("a"), std::string::npos) << again.message();
  EXPECT_EQ(get("a"), "first");
}

TEST_P(StoreConformance, FoldersMustExistBeforeTheirFiles) {
  if (!has_folders()) {
    // An object store's folder is a prefix: it exists once a file is below it, and making one is a no-op.
    ASSERT_TRUE(put("missing/a", "x").ok());
    EntryInfo info;
    ASSERT_TRUE(store_->stat("missing", &info).ok());
    EXPECT_EQ(info.kind, EntryKind::kFolder);
    EXPECT_TRUE(store_->make_folder("f").ok());
    return;
  }
  EXPECT_FALSE(put("missing/a", "x").ok());
  ASSERT_TRUE(store_->make_folder("f").ok());
  ASSERT_TRUE(store_->make_folder("f").ok()) << "an existing folder is fine";
  ASSERT_TRUE(put("f/a", "x").ok());
  EXPECT_EQ(get("f/a"), "x");
  EXPECT_FALSE(store_->make_folder("f/a").ok()) << "a file is not a folder";
  EXPECT_FALSE(put("f/a/b", "x").ok());
}

TEST_P(StoreConformance, OpenTakesOnlyAnExistingFile) {
  ASSERT_TRUE(store_->make_folder("f").ok());
  StoreFile f;
  Status folder = store_->open("f", {}, &f);
  EXPECT_FALSE(folder.ok());
  if (has_folders()) {
    EXPECT_NE(folder.message().find("folder"), std::string::npos) << folder.message();
  }
  EXPECT_FALSE(store_->open("nothing", {}, &f).ok());
  EXPECT_FALSE(f.is_open());
}

TEST_P(StoreConformance, CommitMovesAFolderWithItsFilesAndReplacesAFile) {
  ASSERT_TRUE(store_->make_folder("tmp").ok());
  ASSERT_TRUE(put("tmp/shard", "bytes").ok());
  if (!store_->caps().atomic_commit) {
    // No rename (an object store): the commit is the object written last, and commit() says so.
    const Status s = store_->commit("tmp", "step-1");
    EXPECT_EQ(s.code(), Status::Code::kUnavailable) << s.message();
    EXPECT_EQ(get("tmp/shard"), "bytes") << "nothing moved";
    return;
  }
  ASSERT_TRUE(store_->commit("tmp", "step-1").ok());
  EXPECT_EQ(get("step-1/shard"), "bytes");
  EntryInfo info;
  ASSERT_TRUE(store_->stat("tmp", &info).ok());
  EXPECT_EQ(info.kind, EntryKind::kMissing);

  ASSERT_TRUE(put("manifest.tmp", "new").ok());
  ASSERT_TRUE(put("manifest", "old").ok());
  ASSERT_TRUE(store_->commit("manifest.tmp", "manifest").ok());
  EXPECT_EQ(get("manifest"), "new");
  ASSERT_TRUE(store_->sync_folder("").ok());
  ASSERT_TRUE(store_->sync_folder("step-1").ok());
}

TEST_P(StoreConformance, ListNamesTheEntriesDirectlyBelowSorted) {
  ASSERT_TRUE(store_->make_folder("d").ok());
  ASSERT_TRUE(store_->make_folder("d/sub").ok());
  ASSERT_TRUE(put("d/b", "x").ok());
  ASSERT_TRUE(put("d/a", "x").ok());
  ASSERT_TRUE(put("d/sub/deep", "x").ok());
  std::vector<std::string> names;
  ASSERT_TRUE(store_->list("d", &names).ok());
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b", "sub"}));
  ASSERT_TRUE(store_->list("", &names).ok());
  EXPECT_EQ(names, (std::vector<std::string>{"d"}));
  if (has_folders()) {
    EXPECT_FALSE(store_->list("d/a", &names).ok()) << "a file has no entries";
  }
  if (!has_folders()) {
    ASSERT_TRUE(store_->list("d/a", &names).ok());
    EXPECT_TRUE(names.empty()) << "nothing is below a file's name";
  }
}

TEST_P(StoreConformance, StatTellsKindAndSize) {
  ASSERT_TRUE(store_->make_folder("d").ok());
  ASSERT_TRUE(put("d/f", "12345").ok());
  EntryInfo info;
  ASSERT_TRUE(store_->stat("d/f", &info).ok());
  EXPECT_EQ(info.kind, EntryKind::kFile);
  EXPECT_EQ(info.size, 5u);
  ASSERT_TRUE(store_->stat("d", &info).ok());
  EXPECT_EQ(info.kind, EntryKind::kFolder);
  ASSERT_TRUE(store_->stat("d/none", &info).ok());
  EXPECT_EQ(info.kind, EntryKind::kMissing);
  ASSERT_TRUE(store_->stat("none/none", &info).ok());
  EXPECT_EQ(info.kind, EntryKind::kMissing);
}

// The metadata phase's calls on an object store: a whole small file put, stated and got in one call each.
TEST_P(StoreConformance, WholeFilesArePutStatedAndGotInOneCallEach) {
  ASSERT_TRUE(store_->make_folder("d").ok());
  ASSERT_TRUE(store_->put_file("d/f", "3901 bytes? five").ok());
  ASSERT_TRUE(store_->put_file("d/empty", "").ok());
  EntryInfo info;
  ASSERT_TRUE(store_->stat_file("d/f", &info).ok());
  EXPECT_EQ(info.kind, EntryKind::kFile);
  EXPECT_EQ(info.size, 16u);
  ASSERT_TRUE(store_->stat_file("d/empty", &info).ok());
  EXPECT_EQ(info.kind, EntryKind::kFile);
  EXPECT_EQ(info.size, 0u);
  ASSERT_TRUE(store_->stat_file("d/none", &info).ok());
  EXPECT_EQ(info.kind, EntryKind::kMissing);
  std::string got = "stale";
  ASSERT_TRUE(store_->get_file("d/f", 100, &got).ok());
  EXPECT_EQ(got, "3901 bytes? five");
  ASSERT_TRUE(store_->get_file("d/empty", 100, &got).ok());
  EXPECT_EQ(got, "");
  const Status big = store_->get_file("d/f", 4, &got);
  EXPECT_EQ(big.code(), Status::Code::kInvalidArgument) << big.message();
  const Status none = store_->get_file("d/none", 100, &got);
  EXPECT_FALSE(none.ok());
  EXPECT_NE(none.message().find("No such file or directory"), std::string::npos) << none.message();
  EXPECT_EQ(get("d/f"), "3901 bytes? five");  // the ordinary open reads what put_file wrote
  std::vector<std::string> names;
  ASSERT_TRUE(store_->list("d", &names).ok());
  EXPECT_EQ(names, (std::vector<std::string>{"empty", "f"}));
  if (has_folders()) {
    EXPECT_FALSE(store_->put_file("d/f", "again").ok()) << "never replaces a file";
  }
  EXPECT_FALSE(store_->put_file("../f", "x").ok());
  ASSERT_TRUE(store_->remove("d/f").ok());
  ASSERT_TRUE(store_->stat_file("d/f", &info).ok());
  EXPECT_EQ(info.kind, EntryKind::kMissing);
}

// A restore lists the run folder's root once per phase: every listing starts from the first name.
TEST_P(StoreConformance, ListingTheRootAgainNamesEveryEntryAgain) {
  ASSERT_TRUE(put("a", "1").ok());
  ASSERT_TRUE(store_->make_folder("d").ok());
  ASSERT_TRUE(put("d/x", "1").ok());  // an object store's folder is there once something is below it
  for (int i = 0; i < 3; ++i) {
    std::vector<std::string> names;
    ASSERT_TRUE(store_->list("", &names).ok());
    EXPECT_EQ(names, (std::vector<std::string>{"a", "d"})) << "listing " << i;
  }
}

// Where no manifest says when a step committed, a restore falls back on this time: it must be the
// wall clock of the change, for files and folders alike, and a commit must not lose it.
TEST_P(StoreConformance, StatTellsWhenAnEntryLastChanged) {
  const auto wall_ns = [] {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
  // Filesystems stamp times from a coarse clock, up to a tick behind the one read here.
  constexpr int64_t kSlack = 1'000'000'000;
  const int64_t before = wall_ns();
  ASSERT_TRUE(store_->make_folder("d").ok());
  ASSERT_TRUE(put("d/f", "12345").ok());
  // Where the store renames, a commit keeps the time; an object store's folder tells its newest object's.
  const bool renames = store_->caps().atomic_commit;
  if (renames) {
    ASSERT_TRUE(store_->commit("d", "e").ok());
  }
  const int64_t after = wall_ns();
  for (const char* path :
       renames ? std::vector<const char*>{"e", "e/f"} : std::vector<const char*>{"d", "d/f"}) {
    EntryInfo info;
    ASSERT_TRUE(store_->stat(path, &info).ok());
    EXPECT_GE(info.modified_unix_ns, before - kSlack) << path;
    EXPECT_LE(info.modified_unix_ns, after + kSlack) << path;
  }
  EntryInfo gone;
  ASSERT_TRUE(store_->stat(renames ? "d" : "none", &gone).ok());
  EXPECT_EQ(gone.modified_unix_ns, 0) << "missing: no time";
}

TEST_P(StoreConformance, RemoveTakesAFileOrAnEmptyFolderAndRemoveTreeTakesAll) {
  ASSERT_TRUE(store_->make_folder("d").ok());
  ASSERT_TRUE(store_->make_folder("d/sub").ok());
  ASSERT_TRUE(put("d/sub/f", "x").ok());
  ASSERT_TRUE(put("keep", "x").ok());
  if (has_folders()) {
    EXPECT_FALSE(store_->remove("d/sub").ok()) << "not empty";
  }
  ASSERT_TRUE(store_->remove("d/sub/f").ok());
  ASSERT_TRUE(store_->remove("d/sub/f").ok()) << "missing is fine";
  ASSERT_TRUE(store_->remove("d/sub").ok());
  ASSERT_TRUE(put("d/g", "x").ok());
  ASSERT_TRUE(store_->remove_tree("d").ok());
  ASSERT_TRUE(store_->remove_tree("d").ok());
  std::vector<std::string> names;
  ASSERT_TRUE(store_->list("", &names).ok());
  EXPECT_EQ(names, (std::vector<std::string>{"keep"}));
}

TEST_P(StoreConformance, PathsThatCouldLeaveTheRootAreRefusedNamingThePath) {
  for (const std::string bad : {"../x", "/etc/passwd", "a//b", "./a", "a/..", ""}) {
    StoreFile f;
    Status s = store_->create(bad, {}, &f);
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << bad;
    EXPECT_NE(s.message().find("store path"), std::string::npos) << s.message();
    EXPECT_FALSE(store_->make_folder(bad).ok()) << bad;
    // An object store's run is removed by removing its root's tree (""): the one path it takes there.
    if (has_folders() || !bad.empty()) {
      EXPECT_FALSE(store_->remove_tree(bad).ok()) << bad;
    }
  }
}

TEST_P(StoreConformance, FreeSpaceIsReported) {
  uint64_t free_bytes = 0;
  if (!store_->caps().free_space) {
    EXPECT_EQ(store_->free_space(&free_bytes).code(), Status::Code::kUnavailable) << "no figure, said so";
    return;
  }
  ASSERT_TRUE(store_->free_space(&free_bytes).ok());
  EXPECT_GT(free_bytes, 0u);
}

TEST_P(StoreConformance, ASecondLockIsRefusedWhileTheFirstIsHeldAndTakenAfterItGoes) {
  if (!store_->caps().locks) GTEST_SKIP() << "this store cannot lock";
  ASSERT_TRUE(store_->make_folder("f").ok());
  std::unique_ptr<StoreLock> first;
  ASSERT_TRUE(store_->lock("f/the.lock", &first).ok());
  ASSERT_NE(first, nullptr);
  EXPECT_TRUE(first->created());
  EntryInfo info;
  ASSERT_TRUE(store_->stat("f/the.lock", &info).ok());
  EXPECT_EQ(info.kind, EntryKind::kFile) << "the lock is a file, so a folder holding it is not empty";

  std::unique_ptr<StoreLock> second;
  Status s = store_->lock("f/the.lock", &second);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s.message();
  EXPECT_NE(s.message().find("f/the.lock"), std::string::npos) << s.message();
  EXPECT_EQ(second, nullptr);

  std::unique_ptr<StoreLock> other;
  ASSERT_TRUE(store_->lock("f/other.lock", &other).ok()) << "locks on other paths are independent";

  first.reset();
  s = store_->lock("f/the.lock", &second);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_FALSE(second->created()) << "the file the first made stays after release";
}

TEST_P(StoreConformance, ALockNeedsItsParentAndIsNotAFolder) {
  std::unique_ptr<StoreLock> lock;
  if (!store_->caps().locks) {
    EXPECT_EQ(store_->lock("the.lock", &lock).code(), Status::Code::kUnavailable) << "no locks, said so";
    return;
  }
  EXPECT_FALSE(store_->lock("missing/the.lock", &lock).ok());
  ASSERT_TRUE(store_->make_folder("f").ok());
  EXPECT_FALSE(store_->lock("f", &lock).ok());
  EXPECT_EQ(lock, nullptr);
  EXPECT_EQ(store_->lock("../the.lock", &lock).code(), Status::Code::kInvalidArgument);
}

TEST_P(StoreConformance, ListingTheRootAgainNamesTheSameEntries) {
  ASSERT_TRUE(put("a", "x").ok());
  ASSERT_TRUE(store_->make_folder("f").ok());
  ASSERT_TRUE(put("f/x", "x").ok());
  std::vector<std::string> first, second;
  ASSERT_TRUE(store_->list("", &first).ok());
  ASSERT_TRUE(store_->list("", &second).ok());
  EXPECT_EQ(first, (std::vector<std::string>{"a", "f"}));
  EXPECT_EQ(second, first) << "a second listing must not start where the first ended";
}

TEST_P(StoreConformance, SyncAllSucceeds) {
  ASSERT_TRUE(put("a", "x").ok());
  EXPECT_TRUE(store_->sync_all().ok());
}

TEST_P(StoreConformance, AHeldFolderCreatesStatsRenamesListsAndRemovesTheNamesInside) {
  ASSERT_TRUE(store_->make_folder("d").ok());
  std::unique_ptr<StoreFolder> d;
  ASSERT_TRUE(store_->open_folder("d", &d).ok());
  EXPECT_EQ(d->path(), "d");
  {
    // Written and committed: an object store's file exists from its commit on.
    StoreFile f;
    ASSERT_TRUE(d->create("a", {}, &f).ok());
    ASSERT_TRUE(write_store_file(*store_, f, "x").ok());
    StoreFile again;
    const Status twice = d->create("a", {}, &again);
    EXPECT_FALSE(twice.ok());
    EXPECT_NE(twice.message().find("d/a"), std::string::npos) << twice.message();
  }
  EntryInfo info;
  ASSERT_TRUE(d->stat("a", &info).ok());
  EXPECT_EQ(info.kind, EntryKind::kFile);
  ASSERT_TRUE(d->stat("missing", &info).ok());
  EXPECT_EQ(info.kind, EntryKind::kMissing);
  // Renamed where the store renames; an object store keeps the name it was written under.
  const std::string name = store_->caps().atomic_commit ? "b" : "a";
  if (name == "b") {
    ASSERT_TRUE(d->rename("a", "b").ok());
  }
  std::vector<std::string> expected = {name};
  if (has_folders()) {
    ASSERT_TRUE(d->make_folder("sub").ok());
    expected.push_back("sub");
  }
  std::vector<std::string> names;
  ASSERT_TRUE(d->list(&names).ok());
  EXPECT_EQ(names, expected);
  ASSERT_TRUE(store_->stat("d/" + name, &info).ok());  // the same entry, seen by path
  EXPECT_EQ(info.kind, EntryKind::kFile);
  StoreFile opened;
  EXPECT_TRUE(d->open(name, {}, &opened).ok());
  EXPECT_TRUE(d->remove(name).ok());
  if (has_folders()) {
    EXPECT_TRUE(d->remove("sub").ok());
  }
  ASSERT_TRUE(d->list(&names).ok());
  EXPECT_TRUE(names.empty());
}

TEST_P(StoreConformance, AHeldFolderTakesOneNameNotAPathAndOnlyAFolder) {
  ASSERT_TRUE(store_->make_folder("d").ok());
  ASSERT_TRUE(put("file", "x").ok());
  std::unique_ptr<StoreFolder> d;
  if (has_folders()) {
    // An object store's prefix is there to hold whatever comes below it, so it opens any name.
    EXPECT_FALSE(store_->open_folder("file", &d).ok());
    EXPECT_FALSE(store_->open_folder("missing", &d).ok());
  }
  ASSERT_TRUE(store_->open_folder("d", &d).ok());
  StoreFile f;
  const Status s = d->create("x/y", {}, &f);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("one name"), std::string::npos) << s.message();
  EXPECT_FALSE(d->create("..", {}, &f).ok());
}

Status open_posix_for(const std::string& /*test*/, StoreUnderTest* out, std::string* /*skip*/) {
  auto dir = std::make_shared<TempDir>();
  out->keep = dir;
  return open_posix_store(dir->path() + "/root", true, &out->store);
}

Status open_memory_for(const std::string& /*test*/, StoreUnderTest* out, std::string* /*skip*/) {
  out->store = std::make_unique<MemoryStore>(1ULL << 30);
  return Status::Ok();
}

INSTANTIATE_TEST_SUITE_P(Stores, StoreConformance,
                         ::testing::Values(StoreParam{"posix", open_posix_for},
                                           StoreParam{"memory", open_memory_for}),
                         [](const ::testing::TestParamInfo<StoreParam>& p) { return p.param.name; });

TEST(PosixStore, NeverFollowsASymlinkAtAnyComponent) {
  TempDir dir;
  const std::string outside = dir.path() + "/outside";
  ASSERT_EQ(mkdir(outside.c_str(), 0755), 0);
  write_file(outside + "/precious", "keep");
  std::unique_ptr<Store> store;
  ASSERT_TRUE(open_posix_store(dir.path() + "/root", true, &store).ok());
  ASSERT_EQ(symlink(outside.c_str(), (dir.path() + "/root/link").c_str()), 0);

  StoreFile f;
  EXPECT_FALSE(store->create("link/new", {}, &f).ok());
  EXPECT_FALSE(std::filesystem::exists(outside + "/new"));
  EXPECT_FALSE(store->open("link/precious", {}, &f).ok());
  EXPECT_FALSE(store->open("link", {}, &f).ok());
  std::vector<std::string> names;
  EXPECT_FALSE(store->list("link", &names).ok());
  ASSERT_TRUE(store->remove_tree("link").ok()) << "the link goes, not what it points at";
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/root/link"));
  EXPECT_EQ(read_file(outside + "/precious"), "keep");
}

// Another process is kept out while the lock is held, and gets it once the holder lets go.
TEST(PosixStore, ALockKeepsAnotherProcessOutUntilItsHolderLetsGo) {
  TempDir dir;
  std::unique_ptr<Store> store;
  ASSERT_TRUE(open_posix_store(dir.path() + "/root", true, &store).ok());
  std::unique_ptr<StoreLock> mine;
  ASSERT_TRUE(store->lock("the.lock", &mine).ok());
  int to_child[2], from_child[2];
  ASSERT_EQ(pipe(to_child), 0);
  ASSERT_EQ(pipe(from_child), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    mine.reset();  // its copy of the parent's descriptor: the parent's own still holds the lock
    std::unique_ptr<StoreLock> theirs;
    const char refused =
        store->lock("the.lock", &theirs).code() == Status::Code::kInvalidArgument ? 'r' : 'x';
    char go;
    if (write(from_child[1], &refused, 1) != 1 || read(to_child[0], &go, 1) != 1) _exit(2);
    _exit(store->lock("the.lock", &theirs).ok() ? 0 : 1);  // the parent has let go
  }
  char refused = 0;
  ASSERT_EQ(read(from_child[0], &refused, 1), 1);
  EXPECT_EQ(refused, 'r') << "another process took the lock while it was held";
  mine.reset();
  ASSERT_EQ(write(to_child[1], "g", 1), 1);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the lock was not free once released";
  for (int fd : {to_child[0], to_child[1], from_child[0], from_child[1]}) close(fd);
}

TEST(PosixStore, ALockNeverFollowsASymlink) {
  TempDir dir;
  write_file(dir.path() + "/outside", "keep");
  std::unique_ptr<Store> store;
  ASSERT_TRUE(open_posix_store(dir.path() + "/root", true, &store).ok());
  ASSERT_EQ(symlink((dir.path() + "/outside").c_str(), (dir.path() + "/root/the.lock").c_str()), 0);
  std::unique_ptr<StoreLock> lock;
  EXPECT_FALSE(store->lock("the.lock", &lock).ok());
  EXPECT_EQ(read_file(dir.path() + "/outside"), "keep");
}

TEST(MemoryStore, AnArmedFaultFailsTheNextOperationOnThatPathOnce) {
  MemoryStore store;
  store.fail_next("f", ENOSPC);
  StoreFile f;
  Status s = store.create("f", {}, &f);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("No space"), std::string::npos) << s.message();
  EXPECT_TRUE(store.create("f", {}, &f).ok());
}

}  // namespace
}  // namespace iofab::testing
