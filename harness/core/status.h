// Status: the result of a fallible call. Library code never throws across
// layers and never exits; only main() turns a Status into an exit code.
#pragma once

#include <string>
#include <string_view>
#include <utility>

namespace iofab {

// [[nodiscard]]: a dropped Status is an error nobody hears of. A caller that means to drop one (a
// cleanup after an earlier failure, whose own failure would only hide the first) says so with
// ignore_error().
class [[nodiscard]] Status {
 public:
  enum class Code {
    kOk,
    kInvalidArgument,  // bad suite, CLI value or target: exit 2
    kIoError,          // I/O or system failure at run time: exit 3
    kInterrupted,      // SIGINT/SIGTERM seen
    kUnavailable,      // a backend or device is missing: phases skip
    kInternal,
  };

  Status() = default;
  static Status Ok() { return Status(); }
  static Status Invalid(std::string msg) { return Status(Code::kInvalidArgument, std::move(msg)); }
  static Status IoError(std::string msg) { return Status(Code::kIoError, std::move(msg)); }
  static Status Interrupted(std::string msg = "interrupted") {
    return Status(Code::kInterrupted, std::move(msg));
  }
  static Status Unavailable(std::string msg) { return Status(Code::kUnavailable, std::move(msg)); }
  static Status Internal(std::string msg) { return Status(Code::kInternal, std::move(msg)); }
  // "what: strerror(err)"
  static Status FromErrno(std::string_view what, int err);
  // Rebuilds a status sent as (code, message), e.g. from another rank.
  static Status FromCode(Code code, std::string msg);

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }
  // The errno a FromErrno status was made from (EEXIST, ENOSPC, ...), for counts of errors by kind; 0
  // for any other status. It does not travel between ranks (FromCode).
  int sys_errno() const { return errno_; }
  // Drops this status on purpose (see above).
  void ignore_error() const {}
  // Keeps the first error: takes s only while this is ok (absl::Status::Update), so a step that
  // must run after a failure (a barrier, a close) never hides the failure that came first.
  void update(const Status& s) {
    if (ok() && !s.ok()) *this = s;
  }

 private:
  Status(Code code, std::string msg) : code_(code), message_(std::move(msg)) {}
  Code code_ = Code::kOk;
  std::string message_;
  int errno_ = 0;
};

// Keeps in *worst the first real error, else the first interruption, so a
// Ctrl-C never hides a failure.
void keep_worst(Status* worst, const Status& s);

}  // namespace iofab
