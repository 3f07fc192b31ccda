// The suite's s3 stall limits (issue 28, item 11): defaults, accepted forms, and bad values named by field.
#include "driver/targets/s3/s3_settings.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace iofab {
namespace {

using nlohmann::json;

TEST(S3Settings, StallLimitsHaveDefaultsAndTakeDurationsAndRates) {
  S3Settings s;
  std::vector<std::string> errors;
  parse_s3_settings(json::object(), &s, &errors);
  ASSERT_TRUE(errors.empty());
  EXPECT_EQ(s.first_byte_timeout_s, 15);
  EXPECT_EQ(s.low_speed_limit, 1024u);
  EXPECT_EQ(s.low_speed_time_s, 15);
  parse_s3_settings({{"first_byte_timeout", "2s"}, {"low_speed_limit", "1MiB/s"}, {"low_speed_time", 30}}, &s,
                    &errors);
  ASSERT_TRUE(errors.empty()) << errors.front();
  EXPECT_EQ(s.first_byte_timeout_s, 2);
  EXPECT_EQ(s.low_speed_limit, 1u << 20);
  EXPECT_EQ(s.low_speed_time_s, 30);
}

TEST(S3Settings, BadStallLimitsAreNamedWithTheExpectedForm) {
  struct Case {
    json j;
    std::string says;
  };
  for (const Case& c : {
           Case{{{"first_byte_timeout", "0s"}}, "s3.first_byte_timeout: expected a duration from 1s to 1h"},
           Case{{{"first_byte_timeout", "forever"}}, "s3.first_byte_timeout: expected a duration"},
           Case{{{"low_speed_time", "2h"}}, "s3.low_speed_time: expected a duration from 1s to 1h"},
           Case{{{"low_speed_limit", "1KiB"}}, "s3.low_speed_limit: expected a rate"},
           Case{{{"low_speed_limit", 0}}, "s3.low_speed_limit: expected a rate from 1 byte/s"},
       }) {
    S3Settings s;
    std::vector<std::string> errors;
    parse_s3_settings(c.j, &s, &errors);
    ASSERT_EQ(errors.size(), 1u) << c.j.dump();
    EXPECT_NE(errors[0].find(c.says), std::string::npos) << errors[0];
  }
}

}  // namespace
}  // namespace iofab
