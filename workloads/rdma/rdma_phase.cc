#include "workloads/rdma/rdma_phase.h"

#include "harness/phase/metric_rows.h"
#include "harness/phase/params.h"
#include "harness/rdma/gpu_memory.h"
#include "harness/rdma/verbs_fabric.h"
#include "workloads/collectives/sweep.h"
#include "workloads/rdma/rdma_run.h"
#include "workloads/rdma/rdma_spec.h"

namespace iofab {
namespace {

using nlohmann::json;

class RdmaPhase final : public Phase {
 public:
  explicit RdmaPhase(RdmaSpec spec) : spec_(std::move(spec)) {}

  // Nothing goes to the target: the buffers live in host or GPU memory.
  std::optional<uint64_t> planned_bytes(int) const override { return 0; }

  Status run(PhaseContext& ctx, PhaseResult* result) override {
    const RdmaSpec& spec = spec_;
    const FabricOpener open = [&spec](std::unique_ptr<RdmaFabric>* out) {
      Status s = open_verbs_fabric(spec.fabric, out);
      if (s.ok() && spec.memory == RdmaMemory::kCuda) {
        const std::string why = gpu_memory_unavailable_reason();
        if (!why.empty()) return Status::Unavailable(why);
      }
      return s;
    };
    return run_rdma(spec_, ctx.comm, open, ctx.stop, result);
  }

 private:
  RdmaSpec spec_;
};

std::vector<RdmaTest> read_tests(ParamReader& r) {
  const std::vector<RdmaTest> all = {RdmaTest::kWrite, RdmaTest::kRead, RdmaTest::kSend};
  const json* v = r.raw("ops");
  if (v == nullptr) return all;
  const std::vector<std::string> words = name_list(*v);
  std::vector<RdmaTest> out;
  for (const auto& w : words) {
    const auto t = parse_rdma_test(w);
    if (!t) {
      r.fail("ops", "unknown op " + describe_json_value(w) + "; expected a list of: write, read, send");
      return all;
    }
    out.push_back(*t);
  }
  if (out.empty()) r.fail("ops", "expected a non-empty list of: write, read, send");
  return out.empty() ? all : out;
}

}  // namespace

std::unique_ptr<Phase> parse_rdma(ParamReader& r) {
  RdmaSpec s;
  s.tests = read_tests(r);
  const std::string measure = r.choice("measure", "both", {"bandwidth", "latency", "both"});
  s.bandwidth = measure != "latency";
  s.latency = measure != "bandwidth";
  s.pattern = r.choice("pattern", "pairs", {"pairs", "all_to_one"}) == "pairs" ? RdmaPattern::kPairs
                                                                               : RdmaPattern::kAllToOne;
  s.min_bytes = r.size("min_bytes", 2, 1, 1ULL << 30);
  s.max_bytes = r.size("max_bytes", 8ULL << 20, 1, 1ULL << 30);
  s.factor = r.count("factor", 2, 1, 1024);
  check_sweep_bounds(r, s.min_bytes, s.max_bytes, s.factor);
  s.qps = static_cast<int>(r.integer("qps", 1, 1, 1024));
  s.tx_depth = static_cast<uint32_t>(r.integer("tx_depth", 128, 1, 32768));
  s.rx_depth = static_cast<uint32_t>(r.integer("rx_depth", 512, 1, 32768));
  s.iters = static_cast<uint32_t>(r.integer("iters", 1000, 1, 1000000000));
  s.warmup = static_cast<uint32_t>(r.integer("warmup", 100, 0, 1000000000));
  s.duration_s = r.duration("duration", 0, 0, 86400);
  s.stall_s = r.duration("stall_timeout", 30, 0.001, 86400);
  s.fabric.device = r.string("device", "");
  s.fabric.port = static_cast<int>(r.integer("port", 0, 0, 255));
  s.fabric.gid_index = static_cast<int>(r.integer("gid_index", -1, -1, 255));
  // gpu_buffers (the name) is recorded only when given, so the report's params show one truth:
  // memory.
  const bool gpu = r.raw("gpu_buffers") != nullptr && r.boolean("gpu_buffers", false);
  const bool memory_given = r.raw("memory") != nullptr;
  const std::string memory = r.choice("memory", gpu ? "cuda" : "host", {"host", "cuda"});
  if (gpu && memory_given && memory != "cuda") {
    r.fail("gpu_buffers", "true contradicts memory \"" + memory +
                              "\"; give one of them (gpu_buffers: true is memory: cuda)");
  }
  s.memory = memory == "cuda" ? RdmaMemory::kCuda : RdmaMemory::kHost;
  return std::make_unique<RdmaPhase>(std::move(s));
}

namespace {

// rdma_metrics's rows in 1 parts, in the report's order (harness/phase/metric_rows.h).
std::vector<MetricInfo> rdma_metric_rows_1() {
  return {
      {.name = "write_bytes_per_s.max",
       .unit = Unit::kBytesPerSecond,
       .better = Better::kHigher,
       .description = "RDMA WRITE bytes/s per link, the best size's (ib_write_bw's BW average)"},
      {.name = "read_bytes_per_s.max",
       .unit = Unit::kBytesPerSecond,
       .better = Better::kHigher,
       .description = "RDMA READ bytes/s per link, the best size's"},
      {.name = "send_bytes_per_s.max",
       .unit = Unit::kBytesPerSecond,
       .better = Better::kHigher,
       .description = "SEND bytes/s per link, the best size's"},
      {.name = "write_latency_p50_s",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "RDMA WRITE latency, median, half the round trip, at the smallest size (ib_write_lat)"},
      {.name = "write_latency_p99_s",
       .unit = Unit::kSeconds,
       .better = Better::kLower,
       .description = "RDMA WRITE latency, p99, at the smallest size"},
      {.name = "links",
       .unit = Unit::kCount,
       .better = Better::kNeither,
       .description = "initiator-target links measured at once"},
  };
}

}  // namespace

const std::vector<MetricInfo>& rdma_metrics() {
  static const std::vector<MetricInfo> kMetrics = [] {
    // The first four plain names are the console's headline.
    std::vector<MetricInfo> v = joined_rows({rdma_metric_rows_1()});
    for (const char* t : {"write", "read", "send"}) {
      const std::string n(t);
      const std::string lat = n == "read" ? "full round trip" : "half the round trip";
      const std::vector<MetricInfo> per_test = {
          {.name = n + "_latency_p50_s",
           .unit = Unit::kSeconds,
           .better = Better::kLower,
           .description = n + " latency median (" + lat + "), smallest size"},
          {.name = n + "_latency_p99_s",
           .unit = Unit::kSeconds,
           .better = Better::kLower,
           .description = n + " latency p99, smallest size"},
          {.name = n + "_latency_p999_s",
           .unit = Unit::kSeconds,
           .better = Better::kLower,
           .description = n + " latency p99.9, smallest size"},
          {.name = n + "_latency_max_s",
           .unit = Unit::kSeconds,
           .better = Better::kLower,
           .description = n + " latency max, smallest size"},
          {.name = n + "_bytes_per_s.*",
           .unit = Unit::kBytesPerSecond,
           .better = Better::kHigher,
           .description =
               n + "_bytes_per_s.<size>: mean over links of each link's bytes/s; .max the best size's"},
          {.name = n + "_total_bytes_per_s.*",
           .unit = Unit::kBytesPerSecond,
           .better = Better::kHigher,
           .description = "sum over links running at once, per size and .max"},
          {.name = n + "_worst_link_bytes_per_s.*",
           .unit = Unit::kBytesPerSecond,
           .better = Better::kHigher,
           .description = "the slowest link's bytes/s, per size and .max"},
          {.name = n + "_msg_rate.*",
           .unit = Unit::kCount,
           .better = Better::kHigher,
           .description = "messages/s per link (mean), per size and .max"},
          {.name = n + "_latency_p50_s.*",
           .unit = Unit::kSeconds,
           .better = Better::kLower,
           .description = n + " latency median at <size>"},
          {.name = n + "_latency_p99_s.*",
           .unit = Unit::kSeconds,
           .better = Better::kLower,
           .description = n + " latency p99 at <size>"},
          {.name = n + "_latency_p999_s.*",
           .unit = Unit::kSeconds,
           .better = Better::kLower,
           .description = n + " latency p99.9 at <size>"},
          {.name = n + "_latency_max_s.*",
           .unit = Unit::kSeconds,
           .better = Better::kLower,
           .description = n + " latency max at <size>"},
      };
      for (const auto& m : per_test) {
        if (m.name != "write_latency_p50_s" && m.name != "write_latency_p99_s") v.push_back(m);
      }
    }
    return v;
  }();
  return kMetrics;
}

}  // namespace iofab
