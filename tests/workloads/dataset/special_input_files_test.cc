// Files in a checkpoint or dataset folder that are not what iofab wrote: a
// FIFO where a shard or a manifest should be must fail that read at once (not
// block the worker in open()), and a manifest with a repeated key is refused.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "workloads/dataset_at_fd.h"
#include "fifo_guard.h"
#include "workloads/phase_harness.h"
#include "workloads/dataset/dataset.h"

namespace iofab::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json ckpt() {
  return {{"checkpoint_size", "8MiB"}, {"count", 1},       {"gap", 0},         {"workers", 2},
          {"block_size", "256KiB"},    {"queue_depth", 4}, {"engine", "psync"}};
}

json restore() { return {{"workers", 2}, {"fanout", 1}, {"block_size", "256KiB"}, {"queue_depth", 4}}; }

class SpecialCheckpointFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    PhaseResult r;
    Status s = h.run("checkpoint", "checkpoint", ckpt(), &r);
    ASSERT_TRUE(s.ok()) << s.message();
  }
  // Replaces the file name in the step folder with a FIFO.
  std::string make_fifo(const std::string& name) {
    const std::string p = h.path() + "/checkpoint/step-1/" + name;
    fs::remove(p);
    EXPECT_EQ(mkfifo(p.c_str(), 0600), 0);
    return p;
  }
  PhaseHarness h;
};

TEST_F(SpecialCheckpointFiles, AFifoShardFailsThatShardAtOnce) {
  const std::string fifo = make_fifo("shard-00000-of-00002.bin");
  PhaseResult r;
  Status s;
  {
    FifoGuard guard(fifo);
    s = h.run("restore", "restore", restore(), &r);
    EXPECT_FALSE(guard.fired()) << "the restore blocked opening the FIFO shard";
  }
  EXPECT_EQ(s.code(), Status::Code::kIoError);
  EXPECT_NE(s.message().find("shard-00000-of-00002.bin: open shard-00000-of-00002.bin: a FIFO (named pipe), "
                             "expected a regular file"),
            std::string::npos)
      << s.message();
  EXPECT_EQ(r.metrics["corrupt_shards"], 1);
  EXPECT_EQ(r.metrics["read_bytes"], 4 << 20);  // the other shard was still read
}

TEST_F(SpecialCheckpointFiles, AFifoManifestIsNotACommittedCheckpoint) {
  const std::string fifo = make_fifo("manifest.json");
  PhaseResult r;
  Status s;
  {
    FifoGuard guard(fifo);
    s = h.run("restore", "restore", restore(), &r);
    EXPECT_FALSE(guard.fired()) << "the restore blocked opening the FIFO manifest";
  }
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("manifest.json: a FIFO (named pipe), expected a regular file"),
            std::string::npos)
      << s.message();
}

TEST_F(SpecialCheckpointFiles, AManifestWithARepeatedKeyIsRefused) {
  const std::string path = h.path() + "/checkpoint/step-1/manifest.json";
  std::string text = read_file(path);
  const auto brace = text.find('{');
  ASSERT_NE(brace, std::string::npos);
  text.insert(brace + 1, "\"step\": 7, ");  // the manifest has its own "step" too
  fs::remove(path);
  write_file(path, text);
  PhaseResult r;
  Status s = h.run("restore", "restore", restore(), &r);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("the key \"step\" appears twice"), std::string::npos) << s.message();
}

TEST(SpecialDatasetFiles, AFifoDatasetManifestIsForeignAtOnce) {
  TempDir dir("/dev/shm");
  DatasetSpec spec;
  spec.num_samples = 10;
  spec.sample_size = 100;
  spec.resolve_size_bounds();
  DatasetLayout l(spec);
  fs::create_directory(dir.path() + "/data");
  const std::string fifo = dir.path() + "/" + kManifestName;
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const int root = open(dir.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(root, 0);
  DatasetDirState state = DatasetDirState::kEmpty;
  std::string why;
  {
    FifoGuard guard(fifo);
    ASSERT_TRUE(inspect_dataset_dir(root, l, &state, &why).ok());
    EXPECT_FALSE(guard.fired()) << "inspecting the dataset folder blocked on the FIFO manifest";
  }
  close(root);
  EXPECT_EQ(state, DatasetDirState::kForeign);
  EXPECT_NE(why.find("a FIFO (named pipe), expected a regular file"), std::string::npos) << why;
}

}  // namespace
}  // namespace iofab::testing
