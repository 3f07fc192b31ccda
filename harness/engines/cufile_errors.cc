// cuFile's status codes as text, and a read/write's return value as an IoCompletion result: what the
// cufile engine and its tests say about a failed call.
#include "harness/engines/cufile_errors.h"

#include <cerrno>
#include <string>

namespace iofab {

namespace {

struct ErrorRow {
  int code;
  const char* text;
};

// CUfileOpError's codes (cufile.h), each with the words a user reads in a phase's error.
constexpr ErrorRow kErrors[] = {
    {.code = 0, .text = "success"},
    {.code = 5001, .text = "nvidia-fs driver is not loaded"},
    {.code = 5002, .text = "invalid property"},
    {.code = 5003, .text = "property out of range"},
    {.code = 5004, .text = "nvidia-fs driver version mismatch"},
    {.code = 5005, .text = "nvidia-fs driver version could not be read"},
    {.code = 5006, .text = "driver is shutting down"},
    {.code = 5007, .text = "GPUDirect Storage is not supported on this platform"},
    {.code = 5008, .text = "GPUDirect Storage is not supported on this file"},
    {.code = 5009, .text = "GPUDirect Storage is not supported on this GPU"},
    {.code = 5010, .text = "nvidia-fs driver ioctl failed"},
    {.code = 5011, .text = "CUDA driver API error"},
    {.code = 5012, .text = "invalid device pointer"},
    {.code = 5013, .text = "invalid pointer memory type"},
    {.code = 5014, .text = "pointer range exceeds the allocation"},
    {.code = 5015, .text = "CUDA context mismatch"},
    {.code = 5016, .text = "beyond the maximum pinned memory size"},
    {.code = 5017, .text = "beyond the mapped size"},
    {.code = 5018, .text = "unsupported file type"},
    {.code = 5019, .text = "unsupported file open flags"},
    {.code = 5020, .text = "file was not opened with O_DIRECT"},
    {.code = 5022, .text = "invalid arguments"},
    {.code = 5023, .text = "device pointer already registered"},
    {.code = 5024, .text = "device pointer lookup failed"},
    {.code = 5025, .text = "driver or file access error"},
    {.code = 5026, .text = "driver is already open"},
    {.code = 5027, .text = "file descriptor is not registered"},
    {.code = 5028, .text = "file descriptor is already registered"},
    {.code = 5029, .text = "GPU device not found"},
    {.code = 5030, .text = "internal error (see cufile.log)"},
    {.code = 5031, .text = "could not obtain a new file descriptor"},
    {.code = 5033, .text = "nvidia-fs driver initialization failed"},
    {.code = 5034, .text = "GPUDirect Storage is disabled by the configuration for this file"},
    {.code = 5035, .text = "batch submit failed"},
    {.code = 5036, .text = "could not allocate pinned GPU memory"},
    {.code = 5037, .text = "batch queue full"},
    {.code = 5038, .text = "asynchronous I/O is not supported"},
    {.code = 5043, .text = "out of memory"},
    {.code = 5044, .text = "I/O error"},
    {.code = 5045, .text = "buffer registration failed"},
    {.code = 5047, .text = "invalid CUDA context"},
    {.code = 5048, .text = "nvidia-fs internal driver error"},
    {.code = 5049, .text = "batch I/O cannot run in compat mode"},  // CU_FILE_BATCH_NOCOMPAT_ERROR
};

}  // namespace

std::string cufile_error_text(int code) {
  for (const ErrorRow& r : kErrors) {
    if (r.code == code) return std::string(r.text) + " (" + std::to_string(code) + ")";
  }
  return "cuFile error " + std::to_string(code);
}

int64_t cufile_io_result(ssize_t ret, int saved_errno) {
  if (ret >= 0) return static_cast<int64_t>(ret);
  if (ret == -1) return -static_cast<int64_t>(saved_errno > 0 ? saved_errno : EIO);
  const int64_t code = -static_cast<int64_t>(ret);
  if (code < 5000) return -code;  // some releases return -errno directly
  switch (code) {
    case 5019:
    case 5020:
    case 5022:
      return -EINVAL;
    case 5007:
    case 5008:
    case 5009:
    case 5018:
    case 5034:
    case 5049:
      return -EOPNOTSUPP;
    case 5016:
    case 5036:
    case 5043:
      return -ENOMEM;
    default:
      return -EIO;
  }
}

}  // namespace iofab
