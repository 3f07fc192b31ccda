#include "harness/core/status.h"

#include <cstring>

namespace iofab {

Status Status::FromErrno(std::string_view what, int err) {
  std::string msg(what);
  msg += ": ";
  msg += std::strerror(err);
  return Status(Code::kIoError, std::move(msg));
}

}  // namespace iofab
