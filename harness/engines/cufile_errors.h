// cuFile's status codes and read/write return values in the terms a phase reports (cufile_errors.cc).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace iofab {

// A cuFile status code (CUfileOpError, 5000 and up) as text:
// "nvidia-fs driver is not loaded (5001)".
std::string cufile_error_text(int code);

// A cuFileRead/cuFileWrite return value and the errno after it, as an
// IoCompletion result: the byte count, or -errno (cuFile's own codes mapped
// to the nearest errno: EINVAL, EOPNOTSUPP, ENOMEM, else EIO).
int64_t cufile_io_result(ssize_t ret, int saved_errno);

}  // namespace iofab
