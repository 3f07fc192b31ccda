// The prepare phase end to end on one rank: params, every raw sample in the
// shards exactly once and byte for byte, the bounded pipeline held by a slow
// writer, and a run stopped or failed midway.
#include <gtest/gtest.h>
#include <zstd.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/forwarding_engine.h"
#include "workloads/phase_harness.h"
#include "workloads/slow_write_engine.h"
#include "test_util.h"
#include "workloads/dataset/dataset.h"
#include "workloads/prepare/prepare_tar.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

json small_prepare(json extra = json::object()) {
  json p = {{"num_samples", 300},          {"sample_size", "6KiB"}, {"sample_size_distribution", "lognormal"},
            {"sample_size_stdev", "4KiB"}, {"files_per_dir", 64},   {"readers", 2},
            {"transformers", 2},           {"writers", 2},          {"queue_depth", 4},
            {"shard_size", "64KiB"},       {"block_size", "16KiB"}, {"engine", "psync"}};
  for (auto& [k, v] : extra.items()) p[k] = v;
  return p;
}

std::vector<unsigned char> file_bytes(const std::string& path) {
  const std::string s = read_file(path);
  return {s.begin(), s.end()};
}

// Every member of every shard below dir, by sample id, decoded (zstd) or as stored.
std::map<uint64_t, std::vector<unsigned char>> read_shards(const std::string& dir, bool zstd,
                                                           size_t* members) {
  std::map<uint64_t, std::vector<unsigned char>> out;
  *members = 0;
  for (const std::string& name : list_files(dir)) {
    const std::vector<unsigned char> shard = file_bytes(dir + "/" + name);
    std::vector<TarMember> ms;
    Status s = parse_tar(shard, &ms);
    EXPECT_TRUE(s.ok()) << name << ": " << s.message();
    for (const TarMember& m : ms) {
      ++*members;
      const uint64_t id = std::stoull(m.name.substr(0, m.name.find('.')));
      EXPECT_EQ(m.name.substr(m.name.find('.') + 1), zstd ? "zst" : "bin");
      const unsigned char* p = shard.data() + m.offset;
      std::vector<unsigned char> bytes;
      if (zstd) {
        const unsigned long long n = ZSTD_getFrameContentSize(p, m.size);
        EXPECT_NE(n, ZSTD_CONTENTSIZE_ERROR) << m.name;
        EXPECT_NE(n, ZSTD_CONTENTSIZE_UNKNOWN) << m.name;
        bytes.resize(n);
        const size_t r = ZSTD_decompress(bytes.data(), bytes.size(), p, m.size);
        EXPECT_FALSE(ZSTD_isError(r)) << m.name;
      } else {
        bytes.assign(p, p + m.size);
      }
      out[id] = std::move(bytes);
    }
  }
  return out;
}

// Runs a kept prepare phase and checks that the shards hold every raw sample once, byte for byte.
void expect_every_sample_once(const json& params, bool zstd, const std::string& base = "/dev/shm") {
  PhaseHarness h(base);
  PhaseResult r;
  Status s = h.run("prepare", "prep", params, &r, true);
  ASSERT_TRUE(s.ok()) << s.message();
  DatasetSpec spec;
  spec.layout = DatasetLayoutKind::kFiles;
  spec.num_samples = params["num_samples"];
  spec.sample_size = 6 << 10;
  spec.distribution = SizeDistribution::kLognormal;
  spec.sample_size_stdev = 4 << 10;
  spec.files_per_dir = 64;
  spec.resolve_size_bounds();
  const DatasetLayout layout(spec);
  size_t members = 0;
  const auto got = read_shards(h.path() + "/prep/shards", zstd, &members);
  EXPECT_EQ(members, layout.num_samples()) << "no sample written twice";
  ASSERT_EQ(got.size(), layout.num_samples());
  uint64_t sample_bytes = 0;
  for (uint64_t i = 0; i < layout.num_samples(); ++i) {
    const std::vector<unsigned char> raw = file_bytes(h.path() + "/prep/raw/data/" + layout.file_path(i));
    ASSERT_GE(raw.size(), layout.size_of(i));
    ASSERT_TRUE(got.count(i)) << "sample " << i << " missing";
    ASSERT_EQ(got.at(i), std::vector<unsigned char>(raw.begin(), raw.begin() + layout.size_of(i)))
        << "sample " << i;
    sample_bytes += layout.size_of(i);
  }
  EXPECT_EQ(r.metrics.at("input_samples"), static_cast<double>(layout.num_samples()));
  EXPECT_EQ(r.metrics.at("input_bytes"), static_cast<double>(sample_bytes));
  EXPECT_EQ(r.metrics.at("corrupt_samples"), 0);
  EXPECT_GT(r.metrics.at("shards"), 2);
  EXPECT_GT(r.metrics.at("input_bytes_per_s"), 0);
  EXPECT_GT(r.metrics.at("cpu_seconds_per_gb"), 0);
  uint64_t on_disk = 0;
  for (const std::string& name : list_files(h.path() + "/prep/shards")) {
    on_disk += file_bytes(h.path() + "/prep/shards/" + name).size();
  }
  EXPECT_EQ(r.metrics.at("output_bytes"), static_cast<double>(on_disk));
  for (const char* k : {"read_busy_fraction", "transform_busy_fraction", "write_busy_fraction"}) {
    EXPECT_GE(r.metrics.at(k), 0) << k;
    EXPECT_LE(r.metrics.at(k), 1) << k;
  }
  EXPECT_TRUE(r.details["bound_by"].contains("stage"));
}

TEST(PreparePhase, ZstdShardsHoldEveryRawSampleExactlyOnce) {
  expect_every_sample_once(small_prepare({{"level", 1}}), true);
}

TEST(PreparePhase, BusyShardsHoldEveryRawSampleExactlyOnceUnderDirectIo) {
  // O_DIRECT needs a filesystem that takes it: the disk, not tmpfs.
  json p =
      small_prepare({{"transform", "busy"}, {"cpu_per_mib", "1ms"}, {"direct", true}, {"num_samples", 120}});
  expect_every_sample_once(p, false, "/var/tmp");
}

// The raw files' compressibility is what zstd finds: incompressible by default, about half with 0.5.
TEST(PreparePhase, ZstdCompressesTheRawFilesAsTheirCompressibilityAsks) {
  PhaseResult plain, half;
  {
    PhaseHarness h("/dev/shm");
    ASSERT_TRUE(h.run("prepare", "prep", small_prepare({{"num_samples", 60}}), &plain).ok());
  }
  {
    PhaseHarness h("/dev/shm");
    ASSERT_TRUE(h.run("prepare", "prep", small_prepare({{"num_samples", 60}, {"compressibility", 0.5}}), &half).ok());
  }
  EXPECT_LT(plain.metrics.at("compression_ratio"), 1.05);
  EXPECT_GT(half.metrics.at("compression_ratio"), 1.6);
  EXPECT_LT(half.metrics.at("compression_ratio"), 2.4);
  EXPECT_EQ(half.metrics.at("corrupt_samples"), 0);
  EXPECT_EQ(half.details["data_reducibility"]["compressibility"], 0.5);
  EXPECT_FALSE(plain.details["data_reducibility"]["reducible"].get<bool>());
}

TEST(PreparePhase, RemovesItsFilesUnlessKept) {
  PhaseHarness h;
  PhaseResult r;
  ASSERT_TRUE(h.run("prepare", "prep", small_prepare({{"num_samples", 20}}), &r).ok());
  EXPECT_TRUE(list_files(h.path()).empty());
}

TEST(PreparePhase, ASlowWriterHoldsTheReadersWithinTheQueueBounds) {
  PhaseHarness h;
  SlowWriteLog log;
  const EngineMaker slow = slow_write_engines(std::chrono::milliseconds(5), &log);
  h.engines = &slow;
  PhaseResult r;
  json p = small_prepare({{"num_samples", 80},
                          {"sample_size", "4KiB"},
                          {"sample_size_distribution", "fixed"},
                          {"readers", 1},
                          {"transformers", 1},
                          {"writers", 1},
                          {"queue_depth", 2},
                          {"block_size", "4KiB"}});
  p.erase("sample_size_stdev");
  Status s = h.run("prepare", "prep", p, &r);
  ASSERT_TRUE(s.ok()) << s.message();
  const json& queues = r.details["queues"];
  EXPECT_LE(queues["read_queue_high_water"].get<uint64_t>(), 2u);
  EXPECT_LE(queues["write_queue_high_water"].get<uint64_t>(), 2u);
  // One reader, one transformer and one writer each hold at most one sample; the queues two each.
  EXPECT_LE(queues["max_in_flight"].get<uint64_t>(), 1u + 2 + 1 + 2 + 1);
  EXPECT_EQ(r.metrics.at("input_samples"), 80);
  // Every write waits 5 ms; the readers and the transformer wait on the writer.
  EXPECT_EQ(r.details["bound_by"]["stage"], "write") << r.details["bound_by"].dump();
  EXPECT_GT(r.metrics.at("read_wait_room_fraction"), r.metrics.at("read_busy_fraction"));
}

// Fails (or stops the run) at the n-th write any of its engines is given.
class FailingWriteEngine final : public ForwardingEngine {
 public:
  FailingWriteEngine(std::unique_ptr<Engine> inner, std::atomic<int>* writes, int at, std::atomic<bool>* stop)
      : ForwardingEngine(std::move(inner)), writes_(writes), at_(at), stop_(stop) {}
  QueueResult queue(const IoRequest& req, IoCompletion* done) override {
    if (req.op == IoOp::kWrite && writes_->fetch_add(1) + 1 >= at_) {
      if (stop_ != nullptr) {
        stop_->store(true);
      } else {
        *done = {req.tag, -5};  // EIO
        return QueueResult::kCompleted;
      }
    }
    return inner_->queue(req, done);
  }

 private:
  std::atomic<int>* writes_;
  int at_;
  std::atomic<bool>* stop_;
};

Status run_failing(PhaseHarness& h, bool interrupt, PhaseResult* r) {
  std::atomic<int> writes{0};
  std::atomic<bool>* stop = interrupt ? &h.stop : nullptr;
  const EngineMaker failing = [&](std::string_view name, const EngineOptions& opts,
                                  std::unique_ptr<Engine>* out) {
    std::unique_ptr<Engine> inner;
    Status s = make_engine(name, opts, &inner);
    if (s.ok()) *out = std::make_unique<FailingWriteEngine>(std::move(inner), &writes, 5, stop);
    return s;
  };
  h.engines = &failing;
  return h.run("prepare", "prep", small_prepare({{"num_samples", 200}, {"block_size", "4KiB"}}), r);
}

TEST(PreparePhase, AFailedShardWriteFailsThePhaseWithoutHanging) {
  PhaseHarness h;
  PhaseResult r;
  Status s = run_failing(h, false, &r);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Status::Code::kIoError) << s.message();
  EXPECT_NE(s.message().find("Input/output error"), std::string::npos) << s.message();
  EXPECT_LT(r.metrics.at("input_samples"), 200);
}

TEST(PreparePhase, CtrlCMidwayStopsEveryStage) {
  PhaseHarness h;
  PhaseResult r;
  Status s = run_failing(h, true, &r);
  EXPECT_EQ(s.code(), Status::Code::kInterrupted) << s.message();
  EXPECT_LT(r.metrics.at("input_samples"), 200);
}

std::string errors_of(const json& params) {
  std::string errors;
  EXPECT_EQ(PhaseHarness::parse("prepare", params, &errors), nullptr) << params.dump();
  return errors;
}

TEST(PrepareParams, ErrorsNameTheKey) {
  EXPECT_TRUE(contains(errors_of({{"transform", "zstd"}, {"cpu_per_mib", "1ms"}}), "phases[0].cpu_per_mib"));
  EXPECT_TRUE(contains(errors_of({{"transform", "busy"}, {"level", 3}}), "phases[0].level"));
  EXPECT_TRUE(contains(errors_of({{"transform", "gzip"}}), "phases[0].transform"));
  EXPECT_TRUE(contains(errors_of({{"level", 23}}), "phases[0].level"));
  EXPECT_TRUE(contains(errors_of({{"readers", 0}}), "phases[0].readers"));
  EXPECT_TRUE(contains(errors_of({{"queue_depth", 0}}), "phases[0].queue_depth"));
  EXPECT_TRUE(contains(errors_of({{"shard_size", "1KiB"}}), "phases[0].shard_size"));
  EXPECT_TRUE(contains(errors_of({{"sample_size_stdev", "1KiB"}}), "phases[0].sample_size_stdev"));
  EXPECT_TRUE(contains(errors_of({{"layout", "shards"}}), "phases[0].layout"));
  EXPECT_NE(PhaseHarness::parse("prepare", small_prepare()), nullptr);
}

TEST(PrepareParams, ABadSuiteExitsTwoNamingTheField) {
  TempDir dir("/dev/shm");
  write_file(dir.path() + "/s.json", R"({"phases": [{"kind": "prepare", "transform": "busy", "level": 9}]})");
  CommandResult c = run_iofab({"validate", dir.path() + "/s.json"});
  EXPECT_EQ(c.exit_code, 2) << c.out << c.err;
  EXPECT_TRUE(contains(c.err, "phases[0].level")) << c.err;
}

}  // namespace
}  // namespace iofab::testing
