// Without CUDA in the build there is nothing to discover.
#include "harness/gpu/devices.h"

#ifndef IOFAB_HAVE_CUDA
namespace iofab {

std::vector<CudaDevice> list_cuda_devices() { return {}; }
std::string cuda_status() { return "built without CUDA"; }

}  // namespace iofab
#endif
