// A tiny HTTP server for tests of a client facing a misbehaving server: a thread
// with a listening socket on 127.0.0.1 (loopback only, a port the kernel picks)
// that hands each request's target ("/bucket?list-type=2&...") to the test's
// answer function and sends back the bytes it returns, on a connection kept
// open for the next request. An answer of std::nullopt reads the request and
// never answers (a wedged gateway). Stopped and joined by the destructor.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace iofab::testing {

class FakeHttpServer {
 public:
  using Answer = std::function<std::optional<std::string>(const std::string& target)>;

  explicit FakeHttpServer(Answer answer) : answer_(std::move(answer)) {
    listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (listen_fd_ < 0 || bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
        listen(listen_fd_, 16) != 0 || getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
      return;
    }
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~FakeHttpServer() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    for (const auto& [fd, pending] : clients_) close(fd);
    if (listen_fd_ >= 0) close(listen_fd_);
  }
  FakeHttpServer(const FakeHttpServer&) = delete;
  FakeHttpServer& operator=(const FakeHttpServer&) = delete;

  bool started() const { return port_ != 0; }
  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int requests() const { return requests_.load(); }

  // A whole HTTP/1.1 answer with body (and its Content-Length).
  static std::string response(int status, const std::string& body) {
    return "HTTP/1.1 " + std::to_string(status) + (status == 200 ? " OK" : " Error") +
           "\r\nContent-Type: application/xml\r\nContent-Length: " + std::to_string(body.size()) +
           "\r\n\r\n" + body;
  }

 private:
  void serve() {
    while (!stop_) {
      std::vector<pollfd> fds{{listen_fd_, POLLIN, 0}};
      for (const auto& [fd, pending] : clients_) fds.push_back({fd, POLLIN, 0});
      if (poll(fds.data(), fds.size(), 20) <= 0) continue;
      if (fds[0].revents & POLLIN) {
        const int c = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (c >= 0) clients_[c];
      }
      for (size_t i = 1; i < fds.size(); ++i) {
        if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) read_from(fds[i].fd);
      }
    }
  }

  void read_from(int fd) {
    char buf[65536];
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) {
      close(fd);
      clients_.erase(fd);
      return;
    }
    std::string& pending = clients_[fd];
    pending.append(buf, static_cast<size_t>(n));
    // Requests without a body (GET, DELETE, HEAD) end at the blank line; a body is skipped by its length.
    for (auto end = pending.find("\r\n\r\n"); end != std::string::npos; end = pending.find("\r\n\r\n")) {
      size_t body = 0;
      const auto cl = pending.find("Content-Length: ");
      if (cl != std::string::npos && cl < end) body = std::stoul(pending.substr(cl + 16));
      if (pending.size() < end + 4 + body) return;
      const auto sp1 = pending.find(' ');
      const std::string target = pending.substr(sp1 + 1, pending.find(' ', sp1 + 1) - sp1 - 1);
      pending.erase(0, end + 4 + body);
      ++requests_;
      const std::optional<std::string> out = answer_(target);
      if (!out) continue;  // never answered: the client waits
      for (size_t sent = 0; sent < out->size();) {
        const ssize_t w = write(fd, out->data() + sent, out->size() - sent);
        if (w <= 0) break;
        sent += static_cast<size_t>(w);
      }
    }
  }

  Answer answer_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<int> requests_{0};
  std::map<int, std::string> clients_;  // connection -> bytes of a request not yet whole
};

}  // namespace iofab::testing
