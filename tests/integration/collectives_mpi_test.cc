// The collectives phase under mpirun, 2 ranks and 4 (oversubscribed): every
// op's result checked (reduce's on the root, the other ranks' recv left
// alone), busbw/algbw equal to each op's factor, the FSDP/DDP byte ratio; a
// lone rank and a GPU-less nccl backend skip with a reason.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_util.h"
#include "workloads/collectives/bus_bandwidth.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

// Small on purpose: two shared cores run every rank.
const char* kSuite = R"({
  "name": "collectives-test",
  "defaults": {"min_bytes": "1KiB", "max_bytes": "64KiB", "factor": 8, "iters": 3, "warmup": 1},
  "phases": [
    {"kind": "collectives", "name": "sweep", "mode": "sweep",
     "checks": [{"metric": "busbw.all_reduce.max", "op": ">=", "value": "1MB/s"},
                {"metric": "wrong_elements", "op": "==", "value": 0}]},
    {"kind": "collectives", "name": "sweep_f16", "mode": "sweep", "dtype": "float16",
     "ops": ["all_reduce", "reduce_scatter"], "root": 1},
    {"kind": "collectives", "name": "sweep_bf16", "mode": "sweep", "dtype": "bfloat16",
     "ops": ["all_reduce", "reduce_scatter", "broadcast"]},
    {"kind": "collectives", "name": "sweep_i32", "mode": "sweep", "dtype": "int32",
     "ops": "all_reduce,all_to_all"},
    {"kind": "collectives", "name": "sweep_reduce", "mode": "sweep", "dtype": "bfloat16",
     "ops": ["reduce"], "root": 1, "checks": [{"metric": "wrong_elements", "op": "==", "value": 0}]},
    {"kind": "collectives", "name": "sweep_p2p", "mode": "sweep", "ops": ["gather", "scatter", "sendrecv"],
     "root": 1, "time_across_ranks": "max", "checks": [{"metric": "wrong_elements", "op": "==", "value": 0}]},
    {"kind": "collectives", "name": "steps", "params": 4e5, "layers": 4, "steps": 2, "warmup_steps": 1,
     "bucket_cap": "256KiB", "first_bucket_cap": "64KiB", "compute_per_layer": "200us",
     "checks": [{"metric": "exposed_comm_fraction.fsdp", "op": "<=", "value": 1.0},
                {"metric": "fsdp_ddp_bytes_ratio", "op": "==", "value": 1.5}]}
  ]
})";

json run_suite(int ranks, const std::string& suite_text, const std::vector<std::string>& extra = {}) {
  TempDir dir("/dev/shm");
  write_file(dir.path() + "/suite.json", suite_text);
  const std::string report = dir.path() + "/r.json";
  std::vector<std::string> args{
      "run", dir.path() + "/suite.json", "--target", dir.path() + "/t", "--out", report, "--quiet"};
  args.insert(args.end(), extra.begin(), extra.end());
  CommandResult r = ranks > 0 ? mpirun_iofab(ranks, args) : run_iofab(args);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  json j = json::parse(read_file(report), nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.out << r.err;
  return j;
}

const json& phase(const json& report, const std::string& name) {
  for (const auto& p : report["phases"]) {
    if (p["name"] == name) return p;
  }
  static const json kNone = json::object();
  ADD_FAILURE() << "no phase " << name;
  return kNone;
}

void expect_sweep_correct(const json& p, int ranks, size_t ops) {
  ASSERT_EQ(p["status"], "passed") << p.dump(1);
  const json& m = p["result"]["metrics"];
  EXPECT_EQ(m["wrong_elements"], 0);
  const json& details = p["result"]["details"];
  EXPECT_EQ(details["backend"]["name"], "mpi");
  EXPECT_FALSE(details["backend"]["reason"].get<std::string>().empty());
  const json& sizes = details["sweep"]["sizes"];
  EXPECT_EQ(sizes.size(), ops * 3);  // 1 KiB, 8 KiB, 64 KiB
  for (const auto& s : sizes) {
    const std::string op = s["op"], size = std::to_string(s["size"].get<uint64_t>());
    ASSERT_TRUE(s["ran"].get<bool>()) << s.dump();
    EXPECT_TRUE(s["checked"].get<bool>()) << s.dump();
    EXPECT_EQ(s["wrong"], 0) << s.dump();
    const double bus = m["busbw." + op + "." + size], alg = m["algbw." + op + "." + size];
    ASSERT_GT(alg, 0) << op << " " << size;
    EXPECT_NEAR(bus / alg, bus_factor(*parse_coll_op(op), ranks), 1e-9) << op << " " << size;
    EXPECT_LE(s["p50_s"].get<double>(), s["p99_s"].get<double>());
    EXPECT_EQ(s["rank_mean_s"].size(), static_cast<size_t>(ranks));
    EXPECT_GE(m["busbw." + op + ".max"].get<double>(), bus);
    EXPECT_GT(m["busbw." + op + ".avg"].get<double>(), 0);
    EXPECT_NEAR(s["time_us"].get<double>(), s["mean_s"].get<double>() * 1e6, 1e-6);
    // In place, beside the out-of-place run, for the ops that have both.
    if (s["in_place"].is_object()) {
      const json& in = s["in_place"];
      EXPECT_TRUE(in["checked"].get<bool>()) << in.dump();
      EXPECT_EQ(in["wrong"], 0) << in.dump();
      EXPECT_GT(m["busbw." + op + ".in_place." + size].get<double>(), 0);
    }
  }
}

void expect_steps_correct(const json& p, int ranks) {
  ASSERT_EQ(p["status"], "passed") << p.dump(1);
  const json& m = p["result"]["metrics"];
  // 4e5 params in 4 layers divide evenly by 2 and 4 ranks: no padding, exactly 1.5.
  EXPECT_DOUBLE_EQ(m["fsdp_ddp_bytes_ratio"].get<double>(), 1.5);
  const double n = ranks;
  EXPECT_DOUBLE_EQ(m["ddp.bytes_per_rank"].get<double>(), 2 * (n - 1) / n * 4e5 * 2);
  EXPECT_DOUBLE_EQ(m["ddp.bytes_per_rank"].get<double>(), m["ddp.bytes_per_rank_analytic"].get<double>());
  EXPECT_DOUBLE_EQ(m["fsdp.bytes_per_rank"].get<double>(), m["fsdp.bytes_per_rank_analytic"].get<double>());
  EXPECT_EQ(m["fsdp.collectives"], 12);  // 3 per layer
  // 800 KB of gradients: a 64 KiB bucket, then 256 KiB ones.
  EXPECT_EQ(m["ddp.collectives"], 4);
  EXPECT_EQ(p["result"]["details"]["ddp"]["bucket_bytes"][0], 65536);
  for (const char* mode : {"ddp", "fsdp"}) {
    const std::string k(mode);
    EXPECT_GT(m[k + ".step_seconds"].get<double>(), 0);
    EXPECT_GE(m[k + ".compute_seconds"].get<double>(), 0.99 * 4 * 300e-6);  // 4 layers x (200 + 100) us
    EXPECT_GE(m[k + ".step_seconds"].get<double>(), m[k + ".compute_seconds"].get<double>() * 0.99);
    const double f = m["exposed_comm_fraction." + k];
    EXPECT_GE(f, 0);
    EXPECT_LE(f, 1);
    EXPECT_EQ(p["result"]["details"][k]["steps"], 2);
  }
  for (const auto& c : p["checks"]) EXPECT_TRUE(c["passed"].get<bool>()) << c.dump();
}

TEST(MpiCollectives, TwoRanksEveryOpCheckedAndStepsCompared) {
  const json j = run_suite(2, kSuite);
  EXPECT_EQ(j["verdict"]["status"], "passed");
  expect_sweep_correct(phase(j, "sweep"), 2, 5);
  expect_sweep_correct(phase(j, "sweep_f16"), 2, 2);
  expect_sweep_correct(phase(j, "sweep_bf16"), 2, 3);
  expect_sweep_correct(phase(j, "sweep_i32"), 2, 2);
  expect_sweep_correct(phase(j, "sweep_reduce"), 2, 1);
  expect_sweep_correct(phase(j, "sweep_p2p"), 2, 3);
  expect_steps_correct(phase(j, "steps"), 2);
  // The time definition is named, nccl-tests' default unless the suite says otherwise.
  EXPECT_EQ(phase(j, "sweep")["result"]["details"]["sweep"]["time_across_ranks"], "avg");
  EXPECT_EQ(phase(j, "sweep_p2p")["result"]["details"]["sweep"]["time_across_ranks"], "max");
  EXPECT_TRUE(phase(j, "sweep")["result"]["details"]["sweep"]["sizes"][0]["in_place"].is_object());
  EXPECT_EQ(phase(j, "sweep_f16")["result"]["details"]["sweep"]["dtype"], "float16");
}

TEST(MpiCollectives, FourRanksOversubscribed) {
  const json j = run_suite(4, kSuite);
  EXPECT_EQ(j["verdict"]["status"], "passed");
  expect_sweep_correct(phase(j, "sweep"), 4, 5);
  expect_sweep_correct(phase(j, "sweep_bf16"), 4, 3);
  expect_sweep_correct(phase(j, "sweep_p2p"), 4, 3);
  expect_steps_correct(phase(j, "steps"), 4);
}

TEST(MpiCollectives, LoneRankSkipsTheseNeedTwo) {
  const json j = run_suite(0, R"({"phases": [{"kind": "collectives", "max_bytes": "4KiB"}]})");
  const json& p = j["phases"][0];
  EXPECT_EQ(p["status"], "skipped");
  EXPECT_EQ(p["reason"], "needs >= 2 ranks");
  EXPECT_EQ(j["verdict"]["status"], "passed");
}

TEST(MpiCollectives, NcclWithoutAGpuSkipsWithTheReason) {
  const json j = run_suite(2, R"({"phases": [{"kind": "collectives", "backend": "nccl", "mode": "sweep",
                                  "max_bytes": "4KiB", "iters": 2}]})");
  const json& p = j["phases"][0];
  if (p["status"] == "skipped") {
    const std::string reason = p["reason"];
#ifdef IOFAB_HAVE_NCCL
    // Built with NCCL, on a machine without a usable GPU: the CUDA runtime's own words.
    EXPECT_EQ(reason.rfind("no CUDA device", 0), 0u) << reason;
    EXPECT_NE(reason.find("(rank "), std::string::npos) << reason;
#else
    EXPECT_EQ(reason, "built without NCCL");
#endif
  } else {
    // A machine with a GPU per rank runs it on NCCL.
    EXPECT_EQ(p["status"], "passed") << p.dump(1);
    EXPECT_EQ(p["result"]["details"]["backend"]["name"], "nccl");
  }
}

TEST(MpiCollectives, OperatorsAndTypesOnMpi) {
  // MPI's built-in ops on 64-bit types, its user ops on 16-bit ones, and avg (a sum, then / n).
  const json j = run_suite(3, R"({
    "defaults": {"mode": "sweep", "min_bytes": "1KiB", "max_bytes": "64KiB", "factor": 8, "iters": 2,
                 "warmup": 1, "ops": ["all_reduce", "reduce_scatter", "reduce"], "root": 2},
    "phases": [
      {"kind": "collectives", "name": "f64_prod", "dtype": "float64", "redop": "prod"},
      {"kind": "collectives", "name": "i64_avg", "dtype": "int64", "redop": "avg"},
      {"kind": "collectives", "name": "f16_max", "dtype": "float16", "redop": "max"},
      {"kind": "collectives", "name": "bf16_avg", "dtype": "bfloat16", "redop": "avg"},
      {"kind": "collectives", "name": "f32_min", "dtype": "float32", "redop": "min", "placement": "in_place"}
    ]})");
  EXPECT_EQ(j["verdict"]["status"], "passed");
  for (const char* name : {"f64_prod", "i64_avg", "f16_max", "bf16_avg", "f32_min"}) {
    SCOPED_TRACE(name);
    expect_sweep_correct(phase(j, name), 3, 3);
  }
  EXPECT_EQ(phase(j, "i64_avg")["result"]["details"]["sweep"]["redop"], "avg");
}

TEST(MpiCollectives, Float8NeedsNccl) {
  const json j = run_suite(2, R"({"phases": [{"kind": "collectives", "backend": "mpi", "mode": "sweep",
                                  "dtype": "float8_e4m3", "max_bytes": "4KiB", "iters": 2}]})");
  const json& p = j["phases"][0];
  EXPECT_EQ(p["status"], "skipped");
  EXPECT_EQ(p["reason"].get<std::string>().rfind(
                "float8_e4m3 needs the nccl backend: MPI has no 8-bit float type", 0),
            0u)
      << p.dump();
}

TEST(MpiCollectives, BadRootIsAnError) {
  TempDir dir("/dev/shm");
  write_file(dir.path() + "/s.json",
             R"({"phases": [{"kind": "collectives", "mode": "sweep", "root": 5, "max_bytes": "1KiB"}]})");
  CommandResult r = mpirun_iofab(
      2, {"run", dir.path() + "/s.json", "--target", dir.path(), "--out", dir.path() + "/r.json", "--quiet"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  json j = json::parse(read_file(dir.path() + "/r.json"));
  EXPECT_EQ(j["phases"][0]["status"], "error");
  EXPECT_EQ(j["phases"][0]["reason"], "root 5 is not a rank: there are 2 ranks");
}

}  // namespace
}  // namespace iofab::testing
