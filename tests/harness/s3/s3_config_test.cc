#include "harness/s3/s3_config.h"

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

// http://[::1]:P was refused with the generic message.
TEST(S3Endpoint, AcceptsAnIpv6AddressInBrackets) {
  for (const char* good : {"http://[::1]:9000", "https://[2001:db8::7]", "http://[::ffff:127.0.0.1]:80"}) {
    Status s = check_s3_endpoint(good);
    EXPECT_TRUE(s.ok()) << good << ": " << s.message();
  }
  for (const char* bad : {"http://::1:9000", "http://[::1", "http://[::1]x",
                          "http://[::1]:", "http://[zz::1]:9000", "http://[]:9000", "http://[::1]:9000/x"}) {
    Status s = check_s3_endpoint(bad);
    EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << bad;
    EXPECT_NE(s.message().find("an IPv6 address in brackets: http://[::1]:9000"), std::string::npos)
        << s.message();
  }
  S3Config c;
  c.endpoint = "http://[::1]:9000";
  c.bucket = "bkt";
  EXPECT_EQ(s3_url(c, "k/1", ""), "http://[::1]:9000/bkt/k/1");
}

TEST(S3Endpoint, TellsAnIpHostFromANameAndNamesTheHostTried) {
  EXPECT_TRUE(s3_endpoint_host_is_ip("http://127.0.0.1:9000"));
  EXPECT_TRUE(s3_endpoint_host_is_ip("http://[::1]:9000"));
  EXPECT_FALSE(s3_endpoint_host_is_ip("http://s3.localhost:9000"));
  EXPECT_FALSE(s3_endpoint_host_is_ip("https://s3.amazonaws.com"));
  S3Config c;
  c.endpoint = "http://s3.example:9000";
  c.bucket = "bench";
  EXPECT_EQ(s3_endpoint_used(c), "http://s3.example:9000");
  c.addressing = S3Addressing::kVirtualHost;
  // What a failure names: the host the request went to, the bucket's.
  EXPECT_EQ(s3_endpoint_used(c), "http://bench.s3.example:9000");
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
