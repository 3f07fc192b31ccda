#include "driver/runner/report_courier.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "harness/core/input_file.h"
#include "harness/fs/atomic_file.h"
#include "harness/fs/run_dir.h"
#include "harness/fs/stale_run_dirs.h"

namespace iofab {
namespace {

constexpr uint32_t kMagic = 0x69666372;  // "ifcr"
// Bounds that no real report reaches; anything larger is a broken handover.
constexpr uint64_t kMaxPath = 1 << 16;
constexpr uint64_t kMaxText = 1ULL << 32;

// What a message asks of the courier.
enum Kind : uint32_t {
  kWriteReport = 0,     // path: the report's; text: its contents
  kRemoveIfGone = 1,    // path: the run folder to remove if the rank goes before kCancelRemoval
  kCancelRemoval = 2,   // the rank removed (or kept) the run folder itself
  kFallbackReport = 3,  // path, text: the report to write if the rank goes before its next kWriteReport
};

// How long a courier whose rank died waits for the run's other ranks to let go of the run folder
// before leaving it to them: the launcher kills them about a second after the loss.
constexpr std::chrono::seconds kRemovalWait{30};

struct Handover {
  uint32_t magic;
  uint32_t kind;
  uint64_t path_len;
  uint64_t text_len;
};

struct Answer {
  uint32_t magic;
  int32_t ok;
  uint64_t message_len;
};

// The courier's own end is fd 3 once it has closed everything else.
constexpr int kCourierFd = 3;

bool send_all(int fd, const void* data, size_t len) {
  const char* p = static_cast<const char*>(data);
  while (len > 0) {
    // MSG_NOSIGNAL: a courier that died must not take this rank down with SIGPIPE.
    const ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;  // a stop signal mid-handover: go on
    if (n <= 0) return false;
    p += n;
    len -= static_cast<size_t>(n);
  }
  return true;
}

bool recv_all(int fd, void* data, size_t len) {
  char* p = static_cast<char*>(data);
  while (len > 0) {
    const ssize_t n = recv(fd, p, len, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    len -= static_cast<size_t>(n);
  }
  return true;
}

std::string run_id_of(const std::string& report_text) {
  const nlohmann::json j = nlohmann::json::parse(report_text, nullptr, false);
  if (!j.is_object() || !j.contains("run") || !j["run"].is_object()) return "";
  const auto it = j["run"].find("id");
  return it != j["run"].end() && it->is_string() ? it->get<std::string>() : "";
}

// The fallback stands in for a report nobody wrote. Another rank of the same run that took over as
// the writer may have written the real one already: that one stays. A report of an earlier run at
// the same --out path is replaced, as the real report would have replaced it.
void write_fallback(const std::string& path, const std::string& text) {
  std::string existing;
  if (read_input_file(path, kMaxReportFileBytes, &existing).ok() && !existing.empty() &&
      run_id_of(existing) == run_id_of(text)) {
    return;
  }
  write_file_atomic(path, text).ignore_error();  // nobody is left to tell of a failure
}

[[noreturn]] void courier_main() {
  prctl(PR_SET_NAME, "iofab-courier", 0, 0, 0);
  std::signal(SIGPIPE, SIG_IGN);
  std::signal(SIGINT, SIG_IGN);  // a Ctrl-C meant for the job must not cut a report short
  std::string remove_if_gone;
  std::string fallback_path, fallback_text;
  for (;;) {
    Handover h{};
    // The rank closed its end, or died: finish its report and its cleanup if it had not.
    const auto rank_gone = [&] {
      if (!fallback_path.empty()) write_fallback(fallback_path, fallback_text);
      bool removed = false;
      // Only a folder named like a run folder, never through a symlink, and only once no rank holds it.
      // The courier has nobody left to tell of a failure: `iofab clean` removes what stays.
      if (!remove_if_gone.empty()) {
        remove_run_dir_once_released(remove_if_gone, kRemovalWait, &removed).ignore_error();
      }
      _exit(0);
    };
    if (!recv_all(kCourierFd, &h, sizeof h)) rank_gone();
    if (h.magic != kMagic || h.kind > kFallbackReport || h.path_len > kMaxPath || h.text_len > kMaxText) _exit(1);
    std::string path(h.path_len, '\0');
    std::string text(h.text_len, '\0');
    // A report cut off mid-handover is dropped: the one before it stays in place.
    if (!recv_all(kCourierFd, path.data(), path.size()) || !recv_all(kCourierFd, text.data(), text.size())) {
      rank_gone();
    }
    Status s;
    if (h.kind == kRemoveIfGone) {
      remove_if_gone = path;
    } else if (h.kind == kCancelRemoval) {
      remove_if_gone.clear();
    } else if (h.kind == kFallbackReport) {
      fallback_path = std::move(path);
      fallback_text = std::move(text);
    } else {
      s = path.empty() ? Status::Invalid("no report path") : write_file_atomic(path, text);
      // A written report, even one that failed, supersedes the fallback: the rank knows and tells.
      fallback_path.clear();
      fallback_text.clear();
    }
    const std::string msg = s.ok() ? "" : s.message();
    const Answer a{kMagic, s.ok() ? 1 : 0, msg.size()};
    if (!send_all(kCourierFd, &a, sizeof a) || !send_all(kCourierFd, msg.data(), msg.size())) {
      rank_gone();  // the file is written all the same
    }
  }
}

}  // namespace

Status ReportCourier::start(std::unique_ptr<ReportCourier>* out) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    return Status::FromErrno("report courier: socketpair", errno);
  }
  const pid_t pid = fork();
  if (pid < 0) {
    const int e = errno;
    close(sv[0]);
    close(sv[1]);
    return Status::FromErrno("report courier: fork", e);
  }
  if (pid == 0) {
    // Out of the launcher's process group: its SIGTERM and SIGKILL go to the group.
    setsid();
    const int null_fd = open("/dev/null", O_RDWR);
    if (null_fd >= 0) {
      // Nothing of the launcher's output plumbing stays open here, so it never waits on us.
      for (int fd = 0; fd <= 2; ++fd) dup2(null_fd, fd);
    }
    const int high = fcntl(sv[1], F_DUPFD, 100);
    if (high < 0 || dup2(high, kCourierFd) < 0) _exit(1);
    close_range(kCourierFd + 1, ~0U, 0);
    courier_main();
  }
  close(sv[1]);
  out->reset(new ReportCourier(pid, sv[0]));
  return Status::Ok();
}

ReportCourier::~ReportCourier() {
  close(fd_);
  int status = 0;
  waitpid(pid_, &status, WNOHANG);  // reap it if it is done; never wait for it
}

bool ReportCourier::exchange(uint32_t kind, const std::string& path, const std::string& text, Status* answer) {
  if (broken_) return false;
  const Handover h{kMagic, kind, path.size(), text.size()};
  Answer a{};
  if (send_all(fd_, &h, sizeof h) && send_all(fd_, path.data(), path.size()) &&
      send_all(fd_, text.data(), text.size()) && recv_all(fd_, &a, sizeof a) && a.magic == kMagic &&
      a.message_len <= kMaxPath) {
    std::string msg(a.message_len, '\0');
    if (recv_all(fd_, msg.data(), msg.size())) {
      *answer = a.ok ? Status::Ok() : Status::IoError(msg);
      return true;
    }
  }
  broken_ = true;
  return false;
}

Status ReportCourier::deliver(const std::string& path, const std::string& text) {
  std::lock_guard<std::mutex> lock(mu_);
  Status answer;
  if (exchange(kWriteReport, path, text, &answer)) return answer;
  // The courier is gone: write it here, as a run without one does.
  return write_file_atomic(path, text);
}

Status ReportCourier::remove_if_gone(const std::string& run_folder) {
  std::lock_guard<std::mutex> lock(mu_);
  Status answer;
  return exchange(kRemoveIfGone, run_folder, "", &answer) ? answer : Status::IoError("the report courier is gone");
}

Status ReportCourier::leave_fallback(const std::string& path, const std::string& text) {
  std::lock_guard<std::mutex> lock(mu_);
  Status answer;
  return exchange(kFallbackReport, path, text, &answer) ? answer : Status::IoError("the report courier is gone");
}

Status ReportCourier::cancel_removal() {
  std::lock_guard<std::mutex> lock(mu_);
  Status answer;
  return exchange(kCancelRemoval, "", "", &answer) ? answer : Status::IoError("the report courier is gone");
}

}  // namespace iofab
