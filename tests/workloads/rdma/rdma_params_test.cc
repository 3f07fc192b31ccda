// The rdma phase's parameters: defaults, units, and errors that name the field.
#include <gtest/gtest.h>

#include "harness/phase/params.h"
#include "harness/phase/phase.h"
#include "workloads/phase_table.h"
#include "workloads/rdma/rdma_phase.h"

namespace iofab {
namespace {

using nlohmann::json;

std::string errors_of(const json& obj) {
  ParamReader r(obj, "phases[2]");
  auto phase = parse_rdma(r);
  EXPECT_NE(phase, nullptr);
  return r.finish({"kind", "name", "checks"}).message();
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(RdmaParams, DefaultsResolveAsPerftest) {
  const json obj = json::object();
  ParamReader r(obj, "phases[0]");
  auto phase = parse_rdma(r);
  ASSERT_TRUE(r.finish().ok()) << r.finish().message();
  const json& p = r.resolved();
  EXPECT_EQ(p["pattern"], "pairs");
  EXPECT_EQ(p["measure"], "both");
  EXPECT_EQ(p["min_bytes"], 2);
  EXPECT_EQ(p["max_bytes"], 8 << 20);
  EXPECT_EQ(p["qps"], 1);
  EXPECT_EQ(p["tx_depth"], 128);
  EXPECT_EQ(p["iters"], 1000);
  EXPECT_EQ(p["memory"], "host");
  EXPECT_EQ(p["gid_index"], -1);
  EXPECT_EQ(p["device"], "");
  EXPECT_FALSE(p.contains("gpu_buffers"));  // recorded only when given: memory is the one truth
  EXPECT_EQ(phase->planned_bytes(8), 0u);
}

TEST(RdmaParams, UnitsListsAndGpuBuffers) {
  const json obj{{"min_bytes", "4KiB"}, {"max_bytes", "1MiB"}, {"ops", "write,send"},
                 {"duration", "2s"},    {"gpu_buffers", true}, {"pattern", "all_to_one"}};
  ParamReader r(obj, "phases[0]");
  parse_rdma(r);
  ASSERT_TRUE(r.finish().ok()) << r.finish().message();
  EXPECT_EQ(r.resolved()["min_bytes"], 4096);
  EXPECT_DOUBLE_EQ(r.resolved()["duration"].get<double>(), 2.0);
  EXPECT_EQ(r.resolved()["memory"], "cuda");
  EXPECT_EQ(r.resolved()["pattern"], "all_to_one");
  EXPECT_TRUE(errors_of({{"ops", {"read"}}, {"memory", "cuda"}}).empty());
}

TEST(RdmaParams, ErrorsNameTheField) {
  EXPECT_TRUE(has(errors_of({{"min_bytes", "1MiB"}, {"max_bytes", "1KiB"}}),
                  "phases[2].max_bytes: must be >= min_bytes"));
  EXPECT_TRUE(has(errors_of({{"factor", 1}, {"max_bytes", "2KiB"}}), "phases[2].factor: must be > 1"));
  EXPECT_TRUE(has(errors_of({{"ops", "write,atomic"}}), "phases[2].ops: unknown op \"atomic\""));
  EXPECT_TRUE(has(errors_of({{"ops", json::array()}}), "phases[2].ops: expected a non-empty list"));
  EXPECT_TRUE(has(errors_of({{"pattern", "ring"}}), "phases[2].pattern"));
  EXPECT_TRUE(
      has(errors_of({{"memory", "host"}, {"gpu_buffers", true}}), "phases[2].gpu_buffers: true contradicts"));
  EXPECT_TRUE(has(errors_of({{"qps", 0}}), "phases[2].qps"));
  EXPECT_TRUE(has(errors_of({{"min_bytes", 0}}), "phases[2].min_bytes"));
  EXPECT_TRUE(has(errors_of({{"max_bytes", "2GiB"}}), "phases[2].max_bytes"));
  EXPECT_TRUE(has(errors_of({{"gid_index", -2}}), "phases[2].gid_index"));
  EXPECT_TRUE(has(errors_of({{"bogus", 1}}), "phases[2].bogus"));  // unknown keys are errors
}

TEST(RdmaParams, MetricsDeclareHeadlineAndFamilies) {
  const PhaseKind* k = find_phase_kind("rdma");
  ASSERT_NE(k, nullptr);
  for (const char* name :
       {"write_bytes_per_s.max", "read_bytes_per_s.max", "send_bytes_per_s.max", "write_latency_p50_s",
        "write_latency_p99_s", "read_latency_p999_s", "send_latency_max_s", "write_bytes_per_s.65536",
        "send_msg_rate.max", "read_total_bytes_per_s.4096", "write_worst_link_bytes_per_s.max",
        "send_latency_p99_s.2", "links"}) {
    EXPECT_NE(find_metric(*k, name), nullptr) << name;
  }
  EXPECT_EQ(find_metric(*k, "write_latency_p50_s.8")->unit, Unit::kSeconds);
  EXPECT_EQ(find_metric(*k, "write_bytes_per_s.max")->better, Better::kHigher);
  EXPECT_EQ(k->metrics()[0].name, "write_bytes_per_s.max");
  EXPECT_EQ(find_metric(*k, "atomic_bytes_per_s.max"), nullptr);
}

}  // namespace
}  // namespace iofab
