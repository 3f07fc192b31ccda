#include "harness/s3/s3_errors.h"

#include <gtest/gtest.h>

namespace iofab {
namespace {

S3ErrorContext ctx(std::string key) {
  return S3ErrorContext{"GET", "http://127.0.0.1:9000", "bkt", std::move(key), "AKIDEXAMPLE"};
}

TEST(S3Errors, Forbidden403NamesTheKeyIdAndSaysCredentialsOrPolicy) {
  Status s = s3_http_error(ctx("a/b"), 403, "<Error><Code>AccessDenied</Code><Message>no</Message></Error>", 0);
  EXPECT_EQ(s.code(), Status::Code::kIoError);
  EXPECT_NE(s.message().find("HTTP 403 AccessDenied"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("key id AKIDEXAMPLE"), std::string::npos);
  EXPECT_NE(s.message().find("credentials"), std::string::npos);
  EXPECT_NE(s.message().find("policy"), std::string::npos);
}

TEST(S3Errors, NotFound404SaysBucketOrKey) {
  Status k = s3_http_error(ctx("a/b"), 404, "<Error><Code>NoSuchKey</Code></Error>", 0);
  EXPECT_NE(k.message().find("no key \"a/b\" in bucket \"bkt\""), std::string::npos) << k.message();
  Status b = s3_http_error(ctx("a/b"), 404, "<Error><Code>NoSuchBucket</Code></Error>", 0);
  EXPECT_NE(b.message().find("no bucket \"bkt\" at http://127.0.0.1:9000"), std::string::npos) << b.message();
}

TEST(S3Errors, GivingUpOn503SaysHowManyRetries) {
  Status s = s3_http_error(ctx("k"), 503, "<Error><Code>SlowDown</Code></Error>", 5);
  EXPECT_NE(s.message().find("HTTP 503 SlowDown (after 5 retries)"), std::string::npos) << s.message();
}

TEST(S3Errors, ConnectionRefusedNamesTheEndpoint) {
  Status s = s3_transport_error(ctx("k"), S3Transport::kConnectRefused, "Failed to connect", 0);
  EXPECT_NE(s.message().find("cannot connect to endpoint http://127.0.0.1:9000"), std::string::npos);
}

TEST(S3Errors, OnlyServerSideAndDroppedConnectionsRetry) {
  for (long h : {500L, 502L, 503L, 504L}) EXPECT_TRUE(s3_retryable(h, S3Transport::kOk)) << h;
  for (long h : {200L, 400L, 403L, 404L, 409L}) EXPECT_FALSE(s3_retryable(h, S3Transport::kOk)) << h;
  EXPECT_TRUE(s3_retryable(0, S3Transport::kDropped));
  EXPECT_FALSE(s3_retryable(0, S3Transport::kConnectRefused));
}

TEST(S3Errors, BackoffDoublesUpToTheCap) {
  EXPECT_EQ(s3_backoff_ns(1, 50, 1000), 50);
  EXPECT_EQ(s3_backoff_ns(2, 50, 1000), 100);
  EXPECT_EQ(s3_backoff_ns(4, 50, 1000), 400);
  EXPECT_EQ(s3_backoff_ns(9, 50, 1000), 1000);
}

TEST(S3Xml, TextAndEntities) {
  const std::string xml = "<R><Contents><Key>a&amp;b</Key></Contents><Contents><Key>c&lt;</Key></Contents></R>";
  const auto all = s3_xml_all(xml, "Key");
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0], "a&b");
  EXPECT_EQ(all[1], "c<");
  EXPECT_EQ(s3_xml_text(xml, "Missing"), "");
  EXPECT_EQ(s3_xml_text("<Key>unclosed", "Key"), "");
}

}  // namespace
}  // namespace iofab
