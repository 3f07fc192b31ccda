// The collectives phase's parameters: defaults, units and errors that name the field.
#include <gtest/gtest.h>

#include "harness/phase/params.h"
#include "harness/phase/phase.h"
#include "workloads/collectives/collectives_phase.h"
#include "workloads/phase_table.h"

namespace iofab {
namespace {

using nlohmann::json;

std::string errors_of(const json& obj) {
  ParamReader r(obj, "phases[0]");
  auto phase = parse_collectives(r);
  EXPECT_NE(phase, nullptr);
  return r.finish({"kind", "name", "checks"}).message();
}

TEST(CollectivesParams, DefaultsResolve) {
  const json obj = json::object();
  ParamReader r(obj, "phases[0]");
  auto phase = parse_collectives(r);
  ASSERT_TRUE(r.finish().ok());
  const json& p = r.resolved();
  EXPECT_EQ(p["mode"], "compare");
  EXPECT_EQ(p["backend"], "auto");
  EXPECT_EQ(p["bucket_cap"], 25 << 20);
  EXPECT_EQ(p["first_bucket_cap"], 1 << 20);
  EXPECT_EQ(p["param_dtype"], "bfloat16");
  EXPECT_EQ(p["dtype"], "float32");
  EXPECT_EQ(p["iters"], 20);
  EXPECT_EQ(p["warmup"], 5);
  EXPECT_EQ(p["check"], true);
  EXPECT_EQ(p["time_across_ranks"], "avg");  // nccl-tests' default, -a 1
  EXPECT_EQ(p["placement"], "both");         // out of place and in place, as nccl-tests' two column groups
  EXPECT_EQ(phase->planned_bytes(64), 0u);   // nothing goes to the target
}

TEST(CollectivesParams, UnitsAndDerivedDefaults) {
  // ParamReader keeps a reference to its object: keep the objects alive.
  const json obj{{"compute_per_layer", "4ms"}, {"max_bytes", "1MiB"}, {"ops", "all_reduce,all_to_all"}};
  ParamReader r(obj, "phases[0]");
  parse_collectives(r);
  ASSERT_TRUE(r.finish().ok()) << r.finish().message();
  EXPECT_DOUBLE_EQ(r.resolved()["forward_compute_per_layer"].get<double>(), 0.002);
  EXPECT_EQ(r.resolved()["max_bytes"], 1 << 20);
  const json list{{"ops", {"broadcast"}}};
  ParamReader arr(list, "phases[0]");
  parse_collectives(arr);
  EXPECT_TRUE(arr.finish().ok());
}

TEST(CollectivesParams, ErrorsNameTheField) {
  EXPECT_NE(errors_of({{"min_bytes", "1MiB"}, {"max_bytes", "1KiB"}})
                .find("phases[0].max_bytes: must be >= min_bytes"),
            std::string::npos);
  EXPECT_NE(errors_of({{"factor", 1}, {"max_bytes", "2KiB"}}).find("phases[0].factor: must be > 1"),
            std::string::npos);
  EXPECT_NE(
      errors_of({{"factor", 1.001}, {"min_bytes", 1}, {"max_bytes", "1GiB"}}).find("more than 1000 sizes"),
      std::string::npos);
  EXPECT_NE(errors_of({{"ops", {"all_reduce", "allreduce"}}}).find("phases[0].ops: unknown op \"allreduce\""),
            std::string::npos);
  EXPECT_NE(errors_of({{"ops", json::array()}}).find("phases[0].ops: expected a non-empty list"),
            std::string::npos);
  EXPECT_NE(errors_of({{"params", 3}, {"layers", 4}}).find("phases[0].params: must be >= layers"),
            std::string::npos);
  EXPECT_NE(errors_of({{"mode", "zero"}}).find("phases[0].mode"), std::string::npos);
  EXPECT_NE(errors_of({{"grad_dtype", "int32"}}).find("phases[0].grad_dtype"), std::string::npos);
  EXPECT_NE(errors_of({{"backend", "gloo"}}).find("phases[0].backend"), std::string::npos);
  EXPECT_NE(errors_of({{"time_across_ranks", "mean"}}).find("phases[0].time_across_ranks"),
            std::string::npos);
  EXPECT_NE(errors_of({{"placement", "inplace"}}).find("phases[0].placement"), std::string::npos);
  EXPECT_NE(errors_of({{"bucket_sz", "1MiB"}}).find("phases[0].bucket_sz: unknown parameter"),
            std::string::npos);
}

TEST(CollectivesParams, ChecksResolveFamiliesInTheirUnits) {
  const PhaseKind* kind = find_phase_kind("collectives");
  ASSERT_NE(kind, nullptr);
  const MetricInfo* busbw = find_metric(*kind, "busbw.all_reduce.1048576");
  ASSERT_NE(busbw, nullptr);
  EXPECT_EQ(busbw->unit, Unit::kBytesPerSecond);
  ASSERT_NE(find_metric(*kind, "algbw.broadcast.max"), nullptr);
  ASSERT_NE(find_metric(*kind, "exposed_comm_fraction.fsdp"), nullptr);
  EXPECT_EQ(find_metric(*kind, "exposed_comm_fraction.fsdp")->unit, Unit::kFraction);
  EXPECT_EQ(find_metric(*kind, "busbw.all_reduce.max")->unit, Unit::kBytesPerSecond);
  EXPECT_EQ(find_metric(*kind, "latency_p99_s"), nullptr);
}

}  // namespace
}  // namespace iofab
