#include "harness/core/status.h"

#include <cstring>

namespace iofab {

Status Status::FromErrno(std::string_view what, int err) {
  std::string msg(what);
  msg += ": ";
  msg += std::strerror(err);
  Status s(Code::kIoError, std::move(msg));
  s.errno_ = err;
  return s;
}

Status Status::FromCode(Code code, std::string msg) {
  if (code == Code::kOk) return Status();
  switch (code) {
    case Code::kInvalidArgument:
    case Code::kInterrupted:
    case Code::kUnavailable:
    case Code::kInternal:
      return Status(code, std::move(msg));
    default:
      return Status(Code::kIoError, std::move(msg));
  }
}

void keep_worst(Status* worst, const Status& s) {
  if (s.ok()) return;
  if (worst->ok() || (worst->code() == Status::Code::kInterrupted && s.code() != Status::Code::kInterrupted)) {
    *worst = s;
  }
}

}  // namespace iofab
