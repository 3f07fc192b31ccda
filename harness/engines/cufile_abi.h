// cuFile's ABI as NVIDIA's public cufile.h declares it: only what the cufile
// engine calls, written by hand because the library is opened with dlopen at
// run time and its header is not needed to build. Where cufile.h is on the
// build machine, cmake/Cufile.cmake compiles cufile_abi_check.h against it and
// a size, offset or value that differs fails the build; docs/gpu.md records
// the field-by-field review against the header's text.
#pragma once

#include <sys/types.h>

#include <cstddef>

namespace iofab::cufile_abi {

// C enums are int-sized on every ABI cuFile ships for, so they are ints here.
constexpr int kSuccess = 0;                     // CU_FILE_SUCCESS
constexpr int kDriverAlreadyOpen = 5026;        // CU_FILE_DRIVER_ALREADY_OPEN
constexpr int kHandleAlreadyRegistered = 5028;  // CU_FILE_HANDLE_ALREADY_REGISTERED
constexpr int kHandleTypeOpaqueFd = 1;          // CU_FILE_HANDLE_TYPE_OPAQUE_FD
constexpr unsigned kAllowCompatModeBit = 1;     // CU_FILE_ALLOW_COMPAT_MODE, a bit of nvfs.dcontrolflags

struct Error {  // CUfileError_t
  int err;      // CUfileOpError
  int cu_err;   // CUresult, when err is CU_FILE_CUDA_DRIVER_ERROR (5011)
};

struct Descr {  // CUfileDescr_t: 24 bytes on LP64 (int, pad, 8-byte union, pointer)
  int type;     // enum CUfileFileHandleType
  union {
    int fd;        // Linux
    void* handle;  // Windows
  } handle;
  const void* fs_ops;  // const CUfileFSOps_t*: nullptr for an OPAQUE_FD
};

using Handle = void*;  // CUfileHandle_t

// CUfileDrvProps_t begins with its nvfs struct in every release; the tail has
// grown over releases, so the library writes into a buffer far larger than any
// version of the struct and only this head is read.
struct DrvPropsHead {
  unsigned major_version;
  unsigned minor_version;
  size_t poll_thresh_size;
  size_t max_direct_io_size;
  unsigned dstatusflags;
  unsigned dcontrolflags;
};
union DrvPropsBuffer {
  DrvPropsHead head;
  unsigned char bytes[4096];
};

using DriverOpenFn = Error (*)();
using DriverCloseFn = Error (*)();
using DriverGetPropertiesFn = Error (*)(DrvPropsBuffer*);
using HandleRegisterFn = Error (*)(Handle*, Descr*);
using HandleDeregisterFn = void (*)(Handle);
using BufRegisterFn = Error (*)(const void*, size_t, int);
using BufDeregisterFn = Error (*)(const void*);
using ReadFn = ssize_t (*)(Handle, void*, size_t, off_t, off_t);
using WriteFn = ssize_t (*)(Handle, const void*, size_t, off_t, off_t);

}  // namespace iofab::cufile_abi
