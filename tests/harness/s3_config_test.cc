#include "harness/engines/s3_config.h"

#include <gtest/gtest.h>

namespace iofab {
namespace {

TEST(S3Target, SplitsBucketAndPrefix) {
  std::string b, p;
  ASSERT_TRUE(parse_s3_target("s3://bench-data/runs/a/", &b, &p).ok());
  EXPECT_EQ(b, "bench-data");
  EXPECT_EQ(p, "runs/a");
  ASSERT_TRUE(parse_s3_target("s3://bench-data", &b, &p).ok());
  EXPECT_EQ(p, "");
}

TEST(S3Target, RefusesWhatCannotBeABucketOrAPrefix) {
  std::string b, p;
  for (const char* bad : {"s3://", "s3://AB", "s3://Upper-Case/x", "s3://b?x/y", "/mnt/fs", "s3://bkt/a//b",
                          "s3://bkt/a/../b", "s3://bkt/./b"}) {
    Status s = parse_s3_target(bad, &b, &p);
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << bad;
    EXPECT_NE(s.message().find("expected s3://bucket/prefix"), std::string::npos) << s.message();
  }
}

TEST(S3Endpoint, AcceptsSchemeHostPortOnly) {
  EXPECT_TRUE(check_s3_endpoint("http://127.0.0.1:9000").ok());
  EXPECT_TRUE(check_s3_endpoint("https://s3.eu-west-1.amazonaws.com").ok());
  for (const char* bad : {"127.0.0.1:9000", "ftp://h", "http://", "http://h:0", "http://h:70000", "http://h:9000/x",
                          "http://h:x", "http://user@h"}) {
    Status s = check_s3_endpoint(bad);
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << bad;
    EXPECT_NE(s.message().find("endpoint"), std::string::npos);
  }
}

TEST(S3Url, PathAndVirtualHostAddressing) {
  S3Config c;
  c.endpoint = "http://127.0.0.1:9000";
  c.bucket = "bkt";
  EXPECT_EQ(s3_url(c, "a b/c+d", ""), "http://127.0.0.1:9000/bkt/a%20b/c%2Bd");
  EXPECT_EQ(s3_url(c, "", "list-type=2&prefix=a%2F"), "http://127.0.0.1:9000/bkt?list-type=2&prefix=a%2F");
  c.addressing = S3Addressing::kVirtualHost;
  c.endpoint = "https://s3.amazonaws.com";
  EXPECT_EQ(s3_url(c, "k/1", "uploads="), "https://bkt.s3.amazonaws.com/k/1?uploads=");
}

TEST(S3Addressing, ParsesTheTwoNames) {
  S3Addressing a = S3Addressing::kPath;
  ASSERT_TRUE(parse_s3_addressing("virtual", &a).ok());
  EXPECT_EQ(a, S3Addressing::kVirtualHost);
  Status s = parse_s3_addressing("vhost", &a);
  EXPECT_NE(s.message().find("expected \"path\" or \"virtual\""), std::string::npos);
}

}  // namespace
}  // namespace iofab
