// The rdma phase under mpirun with 2 ranks on a machine without an RDMA
// device: both ranks agree to skip, with the same reason, and the run ends
// promptly with exit 0 (no rank waits for a peer that never connects).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "test_util.h"

namespace iofab::testing {
namespace {

using nlohmann::json;

TEST(RdmaMpi, TwoRanksSkipAlikeWithoutADevice) {
  std::error_code ec;
  if (std::filesystem::exists("/sys/class/infiniband", ec)) GTEST_SKIP() << "this machine has RDMA devices";
  TempDir dir("/dev/shm");
  write_file(dir.path() + "/suite.json", R"({"phases": [
      {"kind": "rdma", "name": "pairs", "max_bytes": "64KiB", "iters": 10},
      {"kind": "rdma", "name": "incast", "pattern": "all_to_one", "measure": "latency"},
      {"kind": "collectives", "name": "coll", "mode": "sweep", "ops": "all_reduce", "max_bytes": "4KiB",
       "iters": 2, "warmup": 1}]})");
  const std::string report = dir.path() + "/r.json";
  // --rank-timeout: were one rank left waiting for the other, the run would fail, not hang.
  CommandResult r = mpirun_iofab(2, {"run", dir.path() + "/suite.json", "--target", dir.path() + "/t",
                                     "--out", report, "--quiet", "--rank-timeout", "60s"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json j = json::parse(read_file(report), nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["cluster"]["ranks"], 2);
  for (const char* name : {"pairs", "incast"}) {
    const json* p = nullptr;
    for (const auto& x : j["phases"]) {
      if (x["name"] == name) p = &x;
    }
    ASSERT_NE(p, nullptr) << name;
    EXPECT_EQ((*p)["status"], "skipped") << p->dump(1);
#ifdef IOFAB_HAVE_IBVERBS
    // Both ranks gave the same reason, so it reads as is, without a rank prefix.
    EXPECT_EQ((*p)["reason"], "no RDMA device (no /sys/class/infiniband entries)");
#else
    EXPECT_EQ((*p)["reason"], "built without libibverbs");
#endif
    EXPECT_FALSE((*p)["result"]["details"].contains("collectives_vs_verbs"))
        << "a skipped rdma phase has no ceiling";
  }
  EXPECT_EQ(j["verdict"]["status"], "passed");
}

}  // namespace
}  // namespace iofab::testing
