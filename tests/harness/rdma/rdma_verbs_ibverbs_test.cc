// The libibverbs fabric on this machine: with no RDMA device it answers
// Unavailable with the exact skip reason; with one, it opens a port and
// reports it.
#include <gtest/gtest.h>

#include <filesystem>

#include "harness/rdma/verbs_fabric.h"

namespace iofab {
namespace {

TEST(RdmaVerbs, OpensAPortOrSaysWhyNot) {
  std::unique_ptr<RdmaFabric> f;
  Status s = open_verbs_fabric({}, &f);
  std::error_code ec;
  if (!std::filesystem::exists("/sys/class/infiniband", ec)) {
    EXPECT_EQ(s.code(), Status::Code::kUnavailable);
    EXPECT_EQ(s.message(), "no RDMA device (no /sys/class/infiniband entries)");
    return;
  }
  if (!s.ok()) {
    EXPECT_EQ(s.code(), Status::Code::kUnavailable) << s.message();
    GTEST_SKIP() << s.message();
  }
  const auto d = f->describe();
  EXPECT_FALSE(d["device"].get<std::string>().empty());
  EXPECT_GE(d["port"].get<int>(), 1);
}

TEST(RdmaVerbs, NamedDeviceThatIsNotThere) {
  std::unique_ptr<RdmaFabric> f;
  Status s = open_verbs_fabric({"iofab_no_such_dev", 0, -1}, &f);
  EXPECT_EQ(s.code(), Status::Code::kUnavailable);
  EXPECT_NE(s.message().find("no RDMA device"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace iofab
