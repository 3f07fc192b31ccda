// LastModified as S3 lists it, read into ns since the epoch (a store's stat time on an object store).
#include <gtest/gtest.h>

#include "harness/s3/s3_ops.h"

namespace iofab {
namespace {

TEST(S3Time, ReadsListingTimesToTheMillisecondAndRefusesOthers) {
  // 2026-11-28T13:10:00Z: 20,785 days after 1970-01-01, plus 13 h 10 min.
  const int64_t whole = (20785LL * 86400 + 13 * 3600 + 10 * 60) * 1'000'000'000LL;
  EXPECT_EQ(s3_time_unix_ns("2026-11-28T13:10:00Z"), whole);
  EXPECT_EQ(s3_time_unix_ns("2026-11-28T13:10:00.250Z"), whole + 250'000'000);
  EXPECT_EQ(s3_time_unix_ns(""), 0);
  EXPECT_EQ(s3_time_unix_ns("2026-11-28 13:10:00"), 0) << "no T, no Z";
  EXPECT_EQ(s3_time_unix_ns("2026-11-28T13:10:00+01:00"), 0) << "S3 lists UTC only";
}

}  // namespace
}  // namespace iofab
