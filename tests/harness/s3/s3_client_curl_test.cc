// The S3 client against a real s3rver (tests/s3rver_fixture.h).
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <numeric>

#include "harness/s3/s3_client.h"
#include "harness/s3/s3_ops.h"
#include "s3rver_fixture.h"

namespace iofab {
namespace {

using testing::S3rver;

S3Config config_for(const S3rver& srv) {
  S3Config c;
  c.endpoint = srv.endpoint();
  c.bucket = srv.bucket();
  c.connections = 4;
  c.backoff_base_ns = 1'000'000;  // retries in tests wait 1, 2, 4 ms: the count is under test, not the wait
  c.backoff_max_ns = 10'000'000;
  return c;
}

S3Credentials good() { return S3Credentials{testing::kS3rverKeyId, testing::kS3rverSecret, "", "test", ""}; }

std::unique_ptr<S3Client> client(const S3Config& c, const S3Credentials& k = good()) {
  std::unique_ptr<S3Client> out;
  Status s = make_s3_client(c, k, &out);
  EXPECT_TRUE(s.ok()) << s.message();
  return out;
}

std::string pattern(size_t n, unsigned seed) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 131 + seed * 7 + (i >> 12)) & 0xff);
  return s;
}

std::string get_all(S3Client& c, const std::string& key, uint64_t len) {
  std::string out(len, '\0');
  uint64_t got = 0;
  Status s = s3_get_range(c, key, 0, out.data(), len, &got);
  EXPECT_TRUE(s.ok()) << s.message();
  out.resize(got);
  return out;
}

TEST(S3Client, PutGetRangedGetListDelete) {
  IOFAB_START_S3RVER(srv, "iofab-test");
  auto c = client(config_for(*srv));
  const std::string data = pattern(100'000, 1);
  ASSERT_TRUE(s3_upload(*c, "run/a/one", data, 8 << 20, 4).ok());
  ASSERT_TRUE(s3_upload(*c, "run/a/two", "22", 8 << 20, 4).ok());
  ASSERT_TRUE(s3_upload(*c, "other/keep", "k", 8 << 20, 4).ok());
  EXPECT_TRUE(get_all(*c, "run/a/one", data.size()) == data);

  std::string part(1000, '\0');
  uint64_t got = 0;
  ASSERT_TRUE(s3_get_range(*c, "run/a/one", 4321, part.data(), part.size(), &got).ok());
  EXPECT_EQ(got, 1000u);
  EXPECT_TRUE(part == data.substr(4321, 1000));

  std::vector<S3Object> objs;
  ASSERT_TRUE(s3_list(*c, "run/", &objs).ok());
  ASSERT_EQ(objs.size(), 2u);
  EXPECT_EQ(objs[0].key, "run/a/one");
  EXPECT_EQ(objs[0].size, data.size());
  EXPECT_EQ(objs[1].key, "run/a/two");

  uint64_t deleted = 0;
  ASSERT_TRUE(s3_delete_prefix(*c, "run/", &deleted).ok());
  EXPECT_EQ(deleted, 2u);
  ASSERT_TRUE(s3_list(*c, "", &objs).ok());
  ASSERT_EQ(objs.size(), 1u);  // what is not under the prefix stays
  EXPECT_EQ(objs[0].key, "other/keep");
}

TEST(S3Client, MultipartUploadInParallelPartsReadsBackWhole) {
  IOFAB_START_S3RVER(srv, "iofab-test");
  auto c = client(config_for(*srv));
  const uint64_t part = 5 << 20;  // S3's smallest part but the last
  const std::string data = pattern(3 * part + 12345, 2);
  ASSERT_TRUE(s3_upload(*c, "big", data, part, 3).ok());
  // 1 create + 4 parts + 1 complete
  EXPECT_EQ(c->stats().requests, 6u);
  // The parts' bytes once each, plus the completion's small XML body.
  EXPECT_GE(c->stats().bytes_sent, data.size());
  EXPECT_LT(c->stats().bytes_sent, data.size() + 1024);
  EXPECT_TRUE(get_all(*c, "big", data.size() + 1) == data);
}

TEST(S3Client, ManyRequestsInFlightEachComesBackOnce) {
  IOFAB_START_S3RVER(srv, "iofab-test");
  auto c = client(config_for(*srv));
  const std::string data = pattern(64 * 1024, 3);
  ASSERT_TRUE(s3_upload(*c, "obj", data, 8 << 20, 1).ok());
  std::vector<std::string> bufs(32, std::string(4096, '\0'));
  for (uint64_t i = 0; i < bufs.size(); ++i) {
    S3Request r;
    r.key = "obj";
    r.ranged = true;
    r.offset = i * 1900;  // the last ends inside the object
    r.length = 4096;
    r.dest = bufs[i].data();
    r.dest_len = 4096;
    r.tag = i;
    ASSERT_TRUE(c->submit(std::move(r)).ok());
  }
  EXPECT_EQ(c->pending(), 32u);
  std::vector<S3Result> done;
  while (c->pending() > 0) ASSERT_TRUE(c->wait(1, &done).ok());
  ASSERT_EQ(done.size(), 32u);
  std::vector<int> seen(32, 0);
  for (const S3Result& r : done) {
    ASSERT_TRUE(r.status.ok()) << r.status.message();
    EXPECT_EQ(r.http_status, 206);
    ++seen[r.tag];
    EXPECT_TRUE(bufs[r.tag] == data.substr(r.tag * 1900, 4096)) << r.tag;
  }
  EXPECT_EQ(std::accumulate(seen.begin(), seen.end(), 0), 32);
  EXPECT_EQ(*std::min_element(seen.begin(), seen.end()), 1);
  EXPECT_EQ(c->stats().latency_ns.count(), c->stats().requests);
  EXPECT_EQ(c->stats().ttfb_ns.count(), c->stats().requests);
  EXPECT_LE(c->stats().ttfb_ns.max(), c->stats().latency_ns.max());
}

TEST(S3Client, EveryRequestIsSignedWithSigV4) {
  IOFAB_START_S3RVER(srv, "iofab-test");
  auto c = client(config_for(*srv));
  ASSERT_TRUE(s3_upload(*c, "k", "v", 8 << 20, 1).ok());
  std::vector<S3Object> objs;
  ASSERT_TRUE(s3_list(*c, "", &objs).ok());
  std::string stats;
  ASSERT_TRUE(srv->stats(&stats).ok());
  EXPECT_EQ(stats, "{\"requests\":2,\"signed\":2,\"faults\":0,\"tokens\":0}");
}

TEST(S3Client, ASessionTokenGoesWithEveryRequestUnderTheSignature) {
  IOFAB_START_S3RVER(srv, "iofab-test");
  auto c = client(config_for(*srv), S3Credentials{testing::kS3rverKeyId, "secret", "SESSION-TOKEN-1", "test", ""});
  ASSERT_TRUE(s3_upload(*c, "k", "v", 8 << 20, 1).ok());
  EXPECT_EQ(get_all(*c, "k", 1), "v");
  std::string stats;
  ASSERT_TRUE(srv->stats(&stats).ok());
  EXPECT_EQ(stats, "{\"requests\":2,\"signed\":2,\"faults\":0,\"tokens\":2}");
}

TEST(S3Client, VirtualHostAddressingNamesTheBucketInTheHost) {
  IOFAB_START_S3RVER(srv, "iofab-test");
  S3Config vh = config_for(*srv);
  // bench.s3.localhost: curl resolves *.localhost to loopback itself; s3rver takes the bucket from the Host.
  vh.endpoint = "http://s3.localhost:" + srv->endpoint().substr(srv->endpoint().rfind(':') + 1);
  vh.addressing = S3Addressing::kVirtualHost;
  auto c = client(vh);
  ASSERT_TRUE(s3_upload(*c, "dir/vk", "virtual", 8 << 20, 1).ok());
  std::vector<S3Object> objs;
  ASSERT_TRUE(s3_list(*c, "dir/", &objs).ok());
  ASSERT_EQ(objs.size(), 1u);
  // The same object by path style: it went to the bucket named in the host.
  auto path_style = client(config_for(*srv));
  EXPECT_EQ(get_all(*path_style, "dir/vk", 7), "virtual");
}

TEST(S3Client, WrongKeyIdIs403NamingTheKeyIdNeverTheSecret) {
  IOFAB_START_S3RVER(srv, "iofab-test");
  const std::string secret = "wJalrXUtnFEMI-K7MDENG-bPxRfiCYSECRET";
  auto c = client(config_for(*srv), S3Credentials{"AKIAWRONGKEY", secret, "", "test", ""});
  Status s = s3_upload(*c, "k", "v", 8 << 20, 1);
  EXPECT_EQ(s.code(), Status::Code::kIoError);
  EXPECT_NE(s.message().find("HTTP 403 InvalidAccessKeyId"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("key id AKIAWRONGKEY"), std::string::npos);
  EXPECT_NE(s.message().find("credentials"), std::string::npos);
  EXPECT_EQ(s.message().find(secret), std::string::npos);
  EXPECT_EQ(c->stats().errors_by_status.at("403"), 1u);
  EXPECT_EQ(c->stats().retries, 0u);  // a 403 is not retried
}

TEST(S3Client, MissingKeyAndMissingBucketAre404SayingWhich) {
  IOFAB_START_S3RVER(srv, "iofab-test");
  auto c = client(config_for(*srv));
  std::string buf(10, '\0');
  uint64_t got = 0;
  Status k = s3_get_range(*c, "no/such", 0, buf.data(), buf.size(), &got);
  EXPECT_NE(k.message().find("no key \"no/such\" in bucket \"iofab-test\""), std::string::npos) << k.message();
  S3Config other = config_for(*srv);
  other.bucket = "no-such-bucket";
  auto c2 = client(other);
  Status b = s3_get_range(*c2, "x", 0, buf.data(), buf.size(), &got);
  EXPECT_NE(b.message().find("no bucket \"no-such-bucket\""), std::string::npos) << b.message();
}

TEST(S3Client, Injected503SlowDownIsRetriedAndCounted) {
  IOFAB_START_S3RVER(srv, "iofab-test");
  auto c = client(config_for(*srv));
  ASSERT_TRUE(srv->inject(503, "SlowDown", 2).ok());
  ASSERT_TRUE(s3_upload(*c, "k", "value", 8 << 20, 1).ok());
  EXPECT_EQ(c->stats().requests, 3u);
  EXPECT_EQ(c->stats().retries, 2u);
  EXPECT_EQ(c->stats().retried_by_status.at("503"), 2u);
  EXPECT_TRUE(c->stats().errors_by_status.empty());
  EXPECT_EQ(get_all(*c, "k", 5), "value");  // the retry sent the whole body again
  std::string stats;
  ASSERT_TRUE(srv->stats(&stats).ok());
  EXPECT_NE(stats.find("\"faults\":2"), std::string::npos) << stats;
}

TEST(S3Client, Injected500BeyondTheLimitFailsSayingSo) {
  IOFAB_START_S3RVER(srv, "iofab-test");
  S3Config cfg = config_for(*srv);
  cfg.max_retries = 2;
  auto c = client(cfg);
  ASSERT_TRUE(srv->inject(500, "InternalError", 10).ok());
  Status s = s3_upload(*c, "k", "value", 8 << 20, 1);
  EXPECT_EQ(s.code(), Status::Code::kIoError);
  EXPECT_NE(s.message().find("HTTP 500 InternalError (after 2 retries)"), std::string::npos) << s.message();
  EXPECT_EQ(c->stats().requests, 3u);
  EXPECT_EQ(c->stats().retried_by_status.at("500"), 2u);
  EXPECT_EQ(c->stats().errors_by_status.at("500"), 1u);
}

TEST(S3Client, FailedPartAbortsTheMultipartUpload) {
  IOFAB_START_S3RVER(srv, "iofab-test");
  S3Config cfg = config_for(*srv);
  cfg.max_retries = 0;
  auto c = client(cfg);
  const std::string data = pattern(2 * (5 << 20), 4);
  // The create passes; then both parts fail for good.
  ASSERT_TRUE(srv->inject(403, "AccessDenied", 2, 1).ok());
  Status s = s3_upload(*c, "q", data, 5 << 20, 2);
  EXPECT_NE(s.message().find("HTTP 403 AccessDenied"), std::string::npos) << s.message();
  std::vector<S3Object> objs;
  ASSERT_TRUE(s3_list(*c, "", &objs).ok());
  EXPECT_TRUE(objs.empty());
  std::string stats;
  ASSERT_TRUE(srv->stats(&stats).ok());
  // create, 2 failed parts, the abort, the list
  EXPECT_EQ(stats, "{\"requests\":5,\"signed\":5,\"faults\":2,\"tokens\":0}");
}

TEST(S3Client, ConnectionRefusedNamesTheEndpoint) {
  // A bound socket that never listens: its port refuses connections, and no one else can take it.
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  socklen_t len = sizeof a;
  ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len), 0);
  S3Config cfg;
  cfg.endpoint = "http://127.0.0.1:" + std::to_string(ntohs(a.sin_port));
  cfg.bucket = "iofab-test";
  auto c = client(cfg);
  Status s = s3_upload(*c, "k", "v", 8 << 20, 1);
  close(fd);
  EXPECT_NE(s.message().find("cannot connect to endpoint " + cfg.endpoint), std::string::npos) << s.message();
  EXPECT_EQ(c->stats().errors_by_status.at("connect_refused"), 1u);
}

TEST(S3Client, StopFlagEndsTheWaitAsInterrupted) {
  IOFAB_START_S3RVER(srv, "iofab-test");
  auto c = client(config_for(*srv));
  std::atomic<bool> stop{true};
  c->set_stop(&stop);
  S3Request r;
  r.key = "k";
  ASSERT_TRUE(c->submit(std::move(r)).ok());
  std::vector<S3Result> done;
  EXPECT_EQ(c->wait(1, &done).code(), Status::Code::kInterrupted);
  EXPECT_EQ(c->pending(), 0u);
}

TEST(S3rverFixture, WithoutNodeTheTestsSkipSayingWhy) {
  const std::string path = getenv("PATH") != nullptr ? getenv("PATH") : "";
  setenv("PATH", "/nonexistent", 1);
  std::unique_ptr<S3rver> srv;
  std::string why;
  Status s = S3rver::start("iofab-test", &srv, &why);
  setenv("PATH", path.c_str(), 1);
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(srv, nullptr);
  EXPECT_NE(why.find("node and npm are needed"), std::string::npos) << why;
}

}  // namespace
}  // namespace iofab
