#include "harness/core/status.h"

#include <gtest/gtest.h>

namespace iofab {
namespace {

TEST(Status, FromCodeRebuildsEveryKindAndUnknownCodesAreIoErrors) {
  EXPECT_TRUE(Status::FromCode(Status::Code::kOk, "ignored").ok());
  EXPECT_EQ(Status::FromCode(Status::Code::kInterrupted, "x").code(), Status::Code::kInterrupted);
  EXPECT_EQ(Status::FromCode(Status::Code::kInvalidArgument, "x").code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(Status::FromCode(static_cast<Status::Code>(99), "bad").code(), Status::Code::kIoError);
  EXPECT_EQ(Status::FromCode(Status::Code::kUnavailable, "why").message(), "why");
}

TEST(Status, KeepWorstPrefersTheFirstRealErrorOverInterruptions) {
  Status worst;
  keep_worst(&worst, Status::Ok());
  EXPECT_TRUE(worst.ok());
  keep_worst(&worst, Status::Interrupted("ctrl-c"));
  EXPECT_EQ(worst.code(), Status::Code::kInterrupted);
  keep_worst(&worst, Status::IoError("disk"));
  EXPECT_EQ(worst.message(), "disk");
  keep_worst(&worst, Status::IoError("later"));
  keep_worst(&worst, Status::Interrupted("again"));
  EXPECT_EQ(worst.message(), "disk");
}

}  // namespace
}  // namespace iofab
