// Against a real s3rver (tests/s3rver_fixture.h): an IPv6 endpoint http://[::1]:P carries requests, and an
// abort of a multipart upload that fails reaches the phase's warnings instead of vanishing.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "harness/engines/engine.h"
#include "harness/s3/s3_ops.h"
#include "harness/phase/request_metrics.h"
#include "harness/store/s3_store.h"
#include "s3rver_fixture.h"

namespace iofab {
namespace {

using testing::S3rver;

std::shared_ptr<S3Target> target_for(const std::string& endpoint, const std::string& bucket) {
  auto t = std::make_shared<S3Target>();
  t->config.endpoint = endpoint;
  t->config.bucket = bucket;
  t->config.backoff_base_ns = 1'000'000;
  t->creds = S3Credentials{testing::kS3rverKeyId, testing::kS3rverSecret, "", "test", ""};
  t->part_size = 5 << 20;
  t->parallel_parts = 2;
  return t;
}

bool ipv6_loopback_usable() {
  const int fd = socket(AF_INET6, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in6 a{};
  a.sin6_family = AF_INET6;
  a.sin6_addr = in6addr_loopback;
  const bool ok = bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  close(fd);
  return ok;
}

// A relay listening on [::1] (a port the kernel picks, written to port_file) in front of s3rver's
// 127.0.0.1 port: s3rver's launcher listens on IPv4 only. Stopped by its pid.
class Ipv6Relay {
 public:
  Ipv6Relay(int to_port, const std::string& port_file) {
    // An HTTP relay that names s3rver's own host: s3rver takes a Host it does not know ("[::1]:P") for a
    // bucket's (virtual-host addressing) and answers NoSuchBucket. It does not check the signature.
    const std::string to = std::to_string(to_port);
    const std::string script =
        "const http = require('http'); const fs = require('fs');"
        "const s = http.createServer((req, res) => { const h = Object.assign({}, req.headers, {host: "
        "'127.0.0.1:" +
        to + "'}); const u = http.request({host: '127.0.0.1', port: " + to +
        ", path: req.url, method: req.method, headers: h}, r => { res.writeHead(r.statusCode, r.headers); "
        "r.pipe(res); }); u.on('error', () => res.destroy()); req.pipe(u); });"
        "s.listen(0, '::1', () => { fs.writeFileSync('" +
        port_file +
        ".tmp', String(s.address().port));"
        " fs.renameSync('" +
        port_file + ".tmp', '" + port_file + "'); });";
    pid_ = fork();
    if (pid_ == 0) {
      execlp("node", "node", "-e", script.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
  }
  ~Ipv6Relay() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  Ipv6Relay(const Ipv6Relay&) = delete;
  Ipv6Relay& operator=(const Ipv6Relay&) = delete;

 private:
  pid_t pid_ = -1;
};

TEST(S3Ipv6, AnIpv6EndpointInBracketsCarriesRequests) {
  IOFAB_START_S3RVER(srv, "iofab-test");
  if (!ipv6_loopback_usable()) GTEST_SKIP() << "no IPv6 loopback (::1) on this host";
  testing::TempDir dir;
  const std::string port_file = dir.path() + "/port";
  const int s3_port = std::stoi(srv->endpoint().substr(srv->endpoint().rfind(':') + 1));
  Ipv6Relay relay(s3_port, port_file);
  // Node starts in well under a second; the deadline is for a loaded machine.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!std::filesystem::exists(port_file) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(std::filesystem::exists(port_file)) << "the relay did not start";
  const std::string endpoint = "http://[::1]:" + testing::read_file(port_file);
  ASSERT_TRUE(check_s3_endpoint(endpoint).ok());
  auto t = target_for(endpoint, srv->bucket());
  std::unique_ptr<S3Client> c;
  ASSERT_TRUE(make_s3_client(t->config, t->creds, &c).ok());
  const Status put = s3_upload(*c, "v6/key", "over IPv6", 8 << 20, 1);
  ASSERT_TRUE(put.ok()) << put.message();
  std::vector<S3Object> objs;
  ASSERT_TRUE(s3_list(*c, "v6/", &objs).ok());
  ASSERT_EQ(objs.size(), 1u);
  EXPECT_EQ(objs[0].key, "v6/key");
  std::string back(9, '\0');
  uint64_t got = 0;
  ASSERT_TRUE(s3_get_range(*c, "v6/key", 0, back.data(), back.size(), &got).ok());
  EXPECT_EQ(back, "over IPv6");
}

// Writes data through the engine in blocks, in order, without the commit.
Status write_uncommitted(Engine& e, int file, const std::string& data, uint32_t block) {
  for (uint64_t off = 0; off < data.size(); off += block) {
    IoRequest r;
    r.file = file;
    r.op = IoOp::kWrite;
    r.buf = const_cast<char*>(data.data() + off);
    r.len = static_cast<uint32_t>(std::min<uint64_t>(block, data.size() - off));
    r.offset = off;
    IoCompletion done;
    if (e.queue(r, &done) != QueueResult::kCompleted || done.result != r.len)
      return Status::IoError("not written");
  }
  return Status::Ok();
}

// An upload left by an error or Ctrl-C is aborted when its engine goes; an abort the server refuses left
// its parts in the bucket without a word.
TEST(S3Engine, AFailedAbortOfAMultipartUploadIsWarnedAbout) {
  IOFAB_START_S3RVER(srv, "iofab-test");
  auto t = target_for(srv->endpoint(), srv->bucket());
  t->config.max_retries = 0;
  std::unique_ptr<Store> st;
  ASSERT_TRUE(open_s3_store(t, "p/iofab-abort", &st).ok());
  {
    std::unique_ptr<Engine> e;
    ASSERT_TRUE(make_engine("s3", EngineOptions{}, &e).ok());
    StoreFile f;
    ASSERT_TRUE(st->create("half", OpenOptions{}, &f).ok());
    int h = -1;
    ASSERT_TRUE(e->add_store_file(f, &h).ok());
    ASSERT_TRUE(write_uncommitted(*e, h, std::string(6 << 20, 'x'), 1 << 20).ok());  // begun, a part sent
    // From here the server refuses everything: the part still out, if any, and the abort.
    ASSERT_TRUE(srv->inject(403, "AccessDenied", 100).ok());
  }
  RequestStats stats;
  ASSERT_TRUE(st->take_request_stats(&stats));
  EXPECT_EQ(stats.aborts_failed, 1u);
  ASSERT_EQ(stats.abort_failures.size(), 1u);
  EXPECT_NE(stats.abort_failures[0].find("p/iofab-abort/half: "), std::string::npos)
      << stats.abort_failures[0];
  EXPECT_NE(stats.abort_failures[0].find("HTTP 403 AccessDenied"), std::string::npos)
      << stats.abort_failures[0];
  // Through the ranks' wire and into the phase's warnings.
  RequestStats merged;
  ASSERT_TRUE(merge_request_stats({stats.to_json(), stats.to_json()}, &merged));
  EXPECT_EQ(merged.aborts_failed, 2u);
  PhaseResult result;
  put_request_metrics(merged, 1.0, &result);
  ASSERT_EQ(result.warnings.size(), 1u);
  EXPECT_NE(
      result.warnings[0].find("2 multipart uploads could not be aborted, so their parts stay in the bucket"),
      std::string::npos)
      << result.warnings[0];
  EXPECT_NE(result.warnings[0].find("p/iofab-abort/half"), std::string::npos) << result.warnings[0];
}

}  // namespace
}  // namespace iofab
