// The S3 client against a server that misbehaves (issue 28, item 11), played by a fake HTTP server on
// loopback (fake_http_server.h): a listing that repeats its continuation token ends with an error, a key
// outside the prefix asked for is an error naming it (never an exception), and a request that stalls is
// ended within its limits, said as it happens, and named by the setting that ended it.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "fake_http_server.h"
#include "harness/s3/s3_client.h"
#include "harness/s3/s3_object.h"
#include "harness/s3/s3_ops.h"
#include "harness/store/s3_store.h"

namespace iofab {
namespace {

using testing::FakeHttpServer;

std::string list_page(const std::vector<std::string>& keys, bool truncated, const std::string& token) {
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><ListBucketResult>";
  for (const auto& k : keys) xml += "<Contents><Key>" + k + "</Key><Size>1</Size></Contents>";
  xml += std::string("<IsTruncated>") + (truncated ? "true" : "false") + "</IsTruncated>";
  if (!token.empty()) xml += "<NextContinuationToken>" + token + "</NextContinuationToken>";
  return FakeHttpServer::response(200, xml + "</ListBucketResult>");
}

std::unique_ptr<S3Client> client_of(const FakeHttpServer& srv, S3Config c = S3Config()) {
  c.endpoint = srv.endpoint();
  c.bucket = "bench";
  c.backoff_base_ns = 1'000'000;
  c.backoff_max_ns = 10'000'000;
  std::unique_ptr<S3Client> out;
  EXPECT_TRUE(make_s3_client(c, S3Credentials{"AKIDTEST", "secret", "", "t", ""}, &out).ok());
  return out;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST(S3Misbehaving, ARepeatedContinuationTokenEndsTheListingWithAnError) {
  // Before, the same token paged for ever (1,361 LISTs in 60 s); past 50 pages this server stops, so the
  // old client ends (with a wrong Ok) instead of hanging the test.
  FakeHttpServer srv([&](const std::string&) -> std::optional<std::string> {
    return list_page({"run/a"}, srv.requests() < 50, "same-token");
  });
  ASSERT_TRUE(srv.started());
  auto c = client_of(srv);
  std::vector<S3Object> objs;
  const Status s = s3_list(*c, "run/", &objs);
  EXPECT_EQ(s.code(), Status::Code::kIoError) << s.message();
  EXPECT_NE(
      s.message().find("page 2 came with continuation token \"same-token\", which an earlier page gave"),
      std::string::npos)
      << s.message();
  EXPECT_LE(srv.requests(), 2);
}

TEST(S3Misbehaving, ATokenThatComesBackLaterIsCaughtToo) {
  const std::vector<std::string> tokens{"a", "b", "a"};
  FakeHttpServer srv([&](const std::string&) -> std::optional<std::string> {
    const int n = srv.requests();
    return list_page({"run/k" + std::to_string(n)}, n < 50, tokens[static_cast<size_t>(n - 1) % 3]);
  });
  ASSERT_TRUE(srv.started());
  auto c = client_of(srv);
  std::vector<S3Object> objs;
  const Status s = s3_list(*c, "run/", &objs);
  EXPECT_NE(s.message().find("page 3 came with continuation token \"a\""), std::string::npos) << s.message();
}

TEST(S3Misbehaving, AKeyOutsideThePrefixIsAnErrorNamingIt) {
  FakeHttpServer srv([](const std::string&) -> std::optional<std::string> {
    return list_page({"run/ok", "x"}, false, "");
  });
  ASSERT_TRUE(srv.started());
  auto c = client_of(srv);
  std::vector<S3Object> objs;
  const Status s = s3_list(*c, "run/", &objs);
  EXPECT_EQ(s.code(), Status::Code::kIoError) << s.message();
  EXPECT_NE(s.message().find("the server listed key \"x\", which is not under the prefix asked for"),
            std::string::npos)
      << s.message();
}

// Before: "internal error: basic_string::substr: __pos (46) > size (1)", exit 3 and no report.
TEST(S3Misbehaving, AStoreListingAKeyShorterThanItsPrefixSaysSoWithoutAnException) {
  FakeHttpServer srv(
      [](const std::string&) -> std::optional<std::string> { return list_page({"x"}, false, ""); });
  ASSERT_TRUE(srv.started());
  auto target = std::make_shared<S3Target>();
  target->config.endpoint = srv.endpoint();
  target->config.bucket = "bench";
  target->creds = S3Credentials{"AKIDTEST", "secret", "", "t", ""};
  std::unique_ptr<Store> store;
  ASSERT_TRUE(open_s3_store(target, "some/long/prefix/of/a/run/iofab-1", &store).ok());
  std::vector<std::string> names;
  Status s;
  EXPECT_NO_THROW(s = store->list("data", &names));
  EXPECT_EQ(s.code(), Status::Code::kIoError) << s.message();
  EXPECT_NE(s.message().find("key \"x\""), std::string::npos) << s.message();
}

TEST(S3Misbehaving, AnEndpointThatNeverAnswersIsNamedByTheFirstByteTimeoutAndSaidEachTime) {
  FakeHttpServer srv([](const std::string&) -> std::optional<std::string> { return std::nullopt; });
  ASSERT_TRUE(srv.started());
  S3Config cfg;
  cfg.first_byte_timeout_ns = 1'000'000'000;
  cfg.max_retries = 1;
  std::vector<std::string> said;
  cfg.on_stall = [&](const std::string& line) { said.push_back(line); };
  auto c = client_of(srv, cfg);
  std::vector<S3Object> objs;
  const auto t0 = std::chrono::steady_clock::now();
  const Status s = s3_list(*c, "run/", &objs);
  const double took = seconds_since(t0);
  EXPECT_EQ(s.code(), Status::Code::kIoError);
  EXPECT_NE(
      s.message().find("timed out: no answer within 1 s of the request going out (s3.first_byte_timeout)"),
      std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("after 1 retr"), std::string::npos) << s.message();
  EXPECT_GE(took, 2.0) << "each try waited its second";
  EXPECT_LT(took, 30.0) << "not curl's 60 s a try";
  ASSERT_EQ(said.size(), 2u) << "each stall is said as it happens";
  EXPECT_NE(said[0].find("s3: GET s3://bench/"), std::string::npos) << said[0];
  EXPECT_NE(said[0].find("no answer within 1 s"), std::string::npos) << said[0];
  EXPECT_NE(said[0].find("retry 1 of 1"), std::string::npos) << said[0];
  EXPECT_NE(said[1].find("no retries left"), std::string::npos) << said[1];
}

TEST(S3Misbehaving, AnAnswerThatTricklesIsEndedByTheLowSpeedLimit) {
  // The header and 10 bytes of a 100,000-byte body, then nothing.
  FakeHttpServer srv([](const std::string&) -> std::optional<std::string> {
    return std::string("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n0123456789");
  });
  ASSERT_TRUE(srv.started());
  S3Config cfg;
  cfg.low_speed_limit = 1024;
  cfg.low_speed_time_ns = 1'000'000'000;
  cfg.max_retries = 0;
  std::vector<std::string> said;
  cfg.on_stall = [&](const std::string& line) { said.push_back(line); };
  auto c = client_of(srv, cfg);
  std::string dest(100000, '\0');
  uint64_t got = 0;
  const auto t0 = std::chrono::steady_clock::now();
  const Status s = s3_get_range(*c, "run/k", 0, dest.data(), dest.size(), &got);
  EXPECT_LT(seconds_since(t0), 30.0);
  EXPECT_EQ(s.code(), Status::Code::kIoError);
  EXPECT_NE(s.message().find("(s3.low_speed_limit, s3.low_speed_time)"), std::string::npos) << s.message();
  ASSERT_EQ(said.size(), 1u);
  EXPECT_NE(said[0].find("no retries left"), std::string::npos) << said[0];
}

TEST(S3Misbehaving, AHealthyServerIsNotCutShort) {
  FakeHttpServer srv([](const std::string&) -> std::optional<std::string> {
    return list_page({"run/a", "run/b"}, false, "");
  });
  ASSERT_TRUE(srv.started());
  S3Config cfg;
  cfg.first_byte_timeout_ns = 1'000'000'000;
  auto c = client_of(srv, cfg);
  std::vector<S3Object> objs;
  const Status s = s3_list(*c, "run/", &objs);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(objs.size(), 2u);
}

}  // namespace
}  // namespace iofab
