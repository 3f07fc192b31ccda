/* The declarations of NVIDIA's cufile.h that the cufile engine uses, restated
 * (not copied) from the public header's layout as CUDA 13.0's cufile.h gives it
 * (the same as every release since CUDA 11.4 for these types; cudarc's
 * bindgen output of each release records it). Only for the test that compiles
 * harness/engines/cufile_abi_check.h where the real header is absent
 * (tests/CMakeLists.txt: CufileAbiCheck.*). IOFAB_EXCERPT_BREAK=1 changes the
 * handle type's value, =2 drops the union's pointer member (a 4-byte union):
 * the check must then fail to compile. */
#ifndef IOFAB_TEST_CUFILE_EXCERPT_H
#define IOFAB_TEST_CUFILE_EXCERPT_H
#include <stddef.h>
#include <sys/types.h>
#ifdef __cplusplus
extern "C" {
#endif

typedef enum cudaError_enum { CUDA_SUCCESS = 0 } CUresult;

typedef enum CUfileOpError {
  CU_FILE_SUCCESS = 0,
  CU_FILE_CUDA_DRIVER_ERROR = 5011,
  CU_FILE_INVALID_MAPPING_SIZE = 5016,
  CU_FILE_INVALID_MAPPING_RANGE = 5017,
  CU_FILE_INVALID_FILE_OPEN_FLAG = 5019,
  CU_FILE_DIO_NOT_SET = 5020,
  CU_FILE_DRIVER_ALREADY_OPEN = 5026,
  CU_FILE_HANDLE_NOT_REGISTERED = 5027,
  CU_FILE_HANDLE_ALREADY_REGISTERED = 5028
} CUfileOpError;

typedef struct CUfileError {
  CUfileOpError err;
  CUresult cu_err;
} CUfileError_t;

typedef enum CUfileDriverControlFlags {
  CU_FILE_USE_POLL_MODE = 0,
  CU_FILE_ALLOW_COMPAT_MODE = 1
} CUfileDriverControlFlags_t;

typedef struct CUfileDrvProps {
  struct {
    unsigned int major_version;
    unsigned int minor_version;
    size_t poll_thresh_size;
    size_t max_direct_io_size;
    unsigned int dstatusflags;
    unsigned int dcontrolflags;
  } nvfs;
  unsigned int fflags;
  unsigned int max_device_cache_size;
  unsigned int per_buffer_cache_size;
  unsigned int max_device_pinned_mem_size;
  unsigned int max_batch_io_size;
  unsigned int max_batch_io_timeout_msecs;
} CUfileDrvProps_t;

typedef struct CUfileFSOps CUfileFSOps_t;

enum CUfileFileHandleType {
#if defined(IOFAB_EXCERPT_BREAK) && IOFAB_EXCERPT_BREAK == 1
  CU_FILE_HANDLE_TYPE_OPAQUE_FD = 0,
#else
  CU_FILE_HANDLE_TYPE_OPAQUE_FD = 1,
#endif
  CU_FILE_HANDLE_TYPE_OPAQUE_WIN32 = 2,
  CU_FILE_HANDLE_TYPE_USERSPACE_FS = 3
};

typedef struct CUfileDescr_t {
  enum CUfileFileHandleType type;
  union {
    int fd;
#if !defined(IOFAB_EXCERPT_BREAK) || IOFAB_EXCERPT_BREAK != 2
    void* handle;
#endif
  } handle;
  const CUfileFSOps_t* fs_ops;
} CUfileDescr_t;

typedef void* CUfileHandle_t;

CUfileError_t cuFileHandleRegister(CUfileHandle_t* fh, CUfileDescr_t* descr);
void cuFileHandleDeregister(CUfileHandle_t fh);
CUfileError_t cuFileBufRegister(const void* bufPtr_base, size_t length, int flags);
CUfileError_t cuFileBufDeregister(const void* bufPtr_base);
ssize_t cuFileRead(CUfileHandle_t fh, void* bufPtr_base, size_t size, off_t file_offset, off_t bufPtr_offset);
ssize_t cuFileWrite(CUfileHandle_t fh, const void* bufPtr_base, size_t size, off_t file_offset,
                    off_t bufPtr_offset);
CUfileError_t cuFileDriverOpen(void);
CUfileError_t cuFileDriverClose_v2(void);
#define cuFileDriverClose cuFileDriverClose_v2
CUfileError_t cuFileDriverGetProperties(CUfileDrvProps_t* props);

#ifdef __cplusplus
}
#endif
#endif
