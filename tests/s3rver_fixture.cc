#include "s3rver_fixture.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace iofab::testing {
namespace {

using Clock = std::chrono::steady_clock;

bool have_program(const std::string& name) {
  return run_command({"/bin/sh", "-c", "command -v " + name}).exit_code == 0;
}

bool exists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}

// Installs s3rver once: concurrent test processes (ctest -j) wait on a lock, the first installs.
Status install(std::string* skip) {
  const std::string dir = s3rver_install_dir();
  const std::string marker = dir + "/node_modules/s3rver/package.json";
  mkdir(dir.c_str(), 0755);
  const int lock = open((dir + "/.install.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock < 0) return Status::FromErrno("open the s3rver install lock in " + dir, errno);
  flock(lock, LOCK_EX);
  std::string why;
  if (!exists(marker)) {
    const std::string log = dir + "/npm-install.log";
    CommandResult r = run_command({"/bin/sh", "-c",
                                   "npm install --prefix '" + dir + "' --no-audit --no-fund --no-save s3rver@3.7.1 >'" +
                                       log + "' 2>&1"});
    if (r.exit_code != 0 || !exists(marker)) {
      why = "npm install s3rver into " + dir + " failed (exit " + std::to_string(r.exit_code) + "); see " + log;
    }
  }
  close(lock);  // releases the flock
  *skip = why;
  return Status::Ok();
}

bool can_connect(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  close(fd);
  return ok;
}

size_t append(char* data, size_t size, size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

Status control(const std::string& url, bool post, std::string* body) {
  CURL* e = curl_easy_init();
  if (e == nullptr) return Status::Internal("curl_easy_init");
  curl_easy_setopt(e, CURLOPT_URL, url.c_str());
  if (post) curl_easy_setopt(e, CURLOPT_POSTFIELDS, "");
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, append);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, body);
  const CURLcode c = curl_easy_perform(e);
  curl_easy_cleanup(e);
  return c == CURLE_OK ? Status::Ok() : Status::IoError(url + ": " + curl_easy_strerror(c));
}

}  // namespace

std::string s3rver_install_dir() { return std::string(IOFAB_S3RVER_DIR); }

Status S3rver::start(const std::string& bucket, std::unique_ptr<S3rver>* out, std::string* skip) {
  skip->clear();
  if (!have_program("node") || !have_program("npm")) {
    *skip = "node and npm are needed for the S3 tests' s3rver (apt-get install nodejs npm)";
    return Status::Ok();
  }
  if (Status s = install(skip); !s.ok() || !skip->empty()) return s;
  std::unique_ptr<S3rver> srv(new S3rver());
  srv->bucket_ = bucket;
  srv->data_ = srv->dir_.path() + "/data";
  mkdir(srv->data_.c_str(), 0755);
  const std::string port_file = srv->dir_.path() + "/port";
  const std::string log = srv->dir_.path() + "/s3rver.log";
  const std::string script = std::string(IOFAB_SOURCE_DIR) + "/tests/s3rver_launch.js";
  const std::string modules = s3rver_install_dir() + "/node_modules";
  const pid_t pid = fork();
  if (pid < 0) return Status::FromErrno("fork", errno);
  if (pid == 0) {
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    // s3rver makes its ListObjectsV2 continuation tokens with DES, which OpenSSL 3 keeps in its legacy
    // provider: without it every listing of more than a page answers 500.
    execlp("node", "node", "--openssl-legacy-provider", script.c_str(), modules.c_str(), srv->data_.c_str(),
           bucket.c_str(), port_file.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  srv->pid_ = pid;
  // Polls for the port file, then for a connection, up to a deadline (node starts in well under a second).
  const auto deadline = Clock::now() + std::chrono::seconds(60);
  while (Clock::now() < deadline) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      srv->pid_ = -1;
      return Status::IoError("s3rver exited before it listened: " + read_file(log));
    }
    if (srv->port_ == 0 && exists(port_file)) srv->port_ = std::atoi(read_file(port_file).c_str());
    if (srv->port_ > 0 && can_connect(srv->port_)) {
      *out = std::move(srv);
      return Status::Ok();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return Status::IoError("s3rver did not listen within 60 s: " + read_file(log));
}

S3rver::~S3rver() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
}

Status S3rver::inject(int status, const std::string& code, unsigned count, unsigned after) {
  std::string body;
  return control(endpoint() + "/__iofab/faults?status=" + std::to_string(status) + "&code=" + code +
                     "&count=" + std::to_string(count) + "&after=" + std::to_string(after),
                 true, &body);
}

Status S3rver::stats(std::string* json) {
  json->clear();
  return control(endpoint() + "/__iofab/stats", false, json);
}

}  // namespace iofab::testing
