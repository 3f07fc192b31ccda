// The cufile engine's hand-written declarations (cufile_abi.h) held against
// NVIDIA's cufile.h at compile time. Include it after <cufile.h>, in one
// translation unit: cmake/Cufile.cmake makes that unit where the header is on
// the build machine, and ci/device-check compiles it against the cufile
// wheel's header on a GPU machine. Nothing here is linked into iofab.
#pragma once

#include <cstddef>
#include <type_traits>

#include "harness/engines/cufile_abi.h"

namespace iofab::cufile_abi_check {

namespace abi = iofab::cufile_abi;

// The handle cuFileHandleRegister fills and every call takes.
static_assert(std::is_same_v<CUfileHandle_t, abi::Handle>, "CUfileHandle_t is not void*");

// CUfileDescr_t: type, the fd/handle union, fs_ops.
static_assert(sizeof(abi::Descr) == sizeof(CUfileDescr_t), "CUfileDescr_t size");
static_assert(alignof(abi::Descr) == alignof(CUfileDescr_t), "CUfileDescr_t alignment");
static_assert(offsetof(abi::Descr, type) == offsetof(CUfileDescr_t, type), "CUfileDescr_t.type offset");
static_assert(sizeof(abi::Descr::type) == sizeof(CUfileDescr_t::type), "CUfileDescr_t.type size");
static_assert(offsetof(abi::Descr, handle) == offsetof(CUfileDescr_t, handle), "CUfileDescr_t.handle offset");
static_assert(sizeof(abi::Descr::handle) == sizeof(CUfileDescr_t::handle), "CUfileDescr_t.handle size");
static_assert(offsetof(abi::Descr, fs_ops) == offsetof(CUfileDescr_t, fs_ops), "CUfileDescr_t.fs_ops offset");
static_assert(abi::kHandleTypeOpaqueFd == CU_FILE_HANDLE_TYPE_OPAQUE_FD, "CU_FILE_HANDLE_TYPE_OPAQUE_FD");

// CUfileError_t, returned by value from most calls (two ints: in one register on x86-64 and aarch64).
static_assert(sizeof(abi::Error) == sizeof(CUfileError_t), "CUfileError_t size");
static_assert(offsetof(abi::Error, err) == offsetof(CUfileError_t, err), "CUfileError_t.err offset");
static_assert(offsetof(abi::Error, cu_err) == offsetof(CUfileError_t, cu_err), "CUfileError_t.cu_err offset");

// The codes the engine compares against, and those its messages name.
static_assert(abi::kSuccess == CU_FILE_SUCCESS, "CU_FILE_SUCCESS");
static_assert(abi::kDriverAlreadyOpen == CU_FILE_DRIVER_ALREADY_OPEN, "CU_FILE_DRIVER_ALREADY_OPEN");
static_assert(abi::kHandleAlreadyRegistered == CU_FILE_HANDLE_ALREADY_REGISTERED,
              "CU_FILE_HANDLE_ALREADY_REGISTERED");
static_assert(CU_FILE_CUDA_DRIVER_ERROR == 5011, "CU_FILE_CUDA_DRIVER_ERROR");
static_assert(CU_FILE_INVALID_MAPPING_SIZE == 5016 && CU_FILE_INVALID_MAPPING_RANGE == 5017,
              "the BAR1 codes the engine explains");
static_assert(CU_FILE_INVALID_FILE_OPEN_FLAG == 5019 && CU_FILE_DIO_NOT_SET == 5020, "the O_DIRECT codes");
static_assert(CU_FILE_HANDLE_NOT_REGISTERED == 5027, "CU_FILE_HANDLE_NOT_REGISTERED");

// CUfileDrvProps_t: the nvfs head read, and a buffer that holds the whole struct.
using NvfsHead = decltype(CUfileDrvProps_t::nvfs);
static_assert(offsetof(CUfileDrvProps_t, nvfs) == 0, "CUfileDrvProps_t.nvfs first");
static_assert(sizeof(abi::DrvPropsHead) == sizeof(NvfsHead), "CUfileDrvProps_t.nvfs size");
static_assert(offsetof(abi::DrvPropsHead, major_version) == offsetof(NvfsHead, major_version),
              "major_version");
static_assert(offsetof(abi::DrvPropsHead, minor_version) == offsetof(NvfsHead, minor_version),
              "minor_version");
static_assert(offsetof(abi::DrvPropsHead, poll_thresh_size) == offsetof(NvfsHead, poll_thresh_size),
              "poll_thresh_size");
static_assert(offsetof(abi::DrvPropsHead, max_direct_io_size) == offsetof(NvfsHead, max_direct_io_size),
              "max_direct_io_size");
static_assert(offsetof(abi::DrvPropsHead, dstatusflags) == offsetof(NvfsHead, dstatusflags), "dstatusflags");
static_assert(offsetof(abi::DrvPropsHead, dcontrolflags) == offsetof(NvfsHead, dcontrolflags),
              "dcontrolflags");
static_assert(sizeof(CUfileDrvProps_t) <= sizeof(abi::DrvPropsBuffer), "CUfileDrvProps_t outgrew the buffer");
static_assert(abi::kAllowCompatModeBit == CU_FILE_ALLOW_COMPAT_MODE, "CU_FILE_ALLOW_COMPAT_MODE");

// The calls: each hand-written pointer type takes the same argument sizes and returns the same size.
template <class T>
constexpr size_t size_or_zero() {
  if constexpr (std::is_void_v<T>) {
    return 0;
  } else {
    return sizeof(T);
  }
}
template <class R, class... A>
constexpr bool same_shape(R (*)(A...), auto mine) {
  return []<class R2, class... A2>(R2 (*)(A2...)) {
    if constexpr (sizeof...(A) != sizeof...(A2)) {
      return false;
    } else {
      return size_or_zero<R2>() == size_or_zero<R>() && ((sizeof(A) == sizeof(A2)) && ...);
    }
  }(mine);
}
static_assert(same_shape(&cuFileDriverOpen, abi::DriverOpenFn{}), "cuFileDriverOpen");
static_assert(same_shape(&cuFileDriverGetProperties, abi::DriverGetPropertiesFn{}),
              "cuFileDriverGetProperties");
static_assert(same_shape(&cuFileHandleRegister, abi::HandleRegisterFn{}), "cuFileHandleRegister");
static_assert(same_shape(&cuFileHandleDeregister, abi::HandleDeregisterFn{}), "cuFileHandleDeregister");
static_assert(same_shape(&cuFileBufRegister, abi::BufRegisterFn{}), "cuFileBufRegister");
static_assert(same_shape(&cuFileBufDeregister, abi::BufDeregisterFn{}), "cuFileBufDeregister");
static_assert(same_shape(&cuFileRead, abi::ReadFn{}), "cuFileRead");
static_assert(same_shape(&cuFileWrite, abi::WriteFn{}), "cuFileWrite");

}  // namespace iofab::cufile_abi_check
