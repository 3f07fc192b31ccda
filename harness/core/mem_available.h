// How much memory the host can still give without swapping: phases size their
// staging copies and buffers against it before they allocate.
#pragma once

#include <cstdint>

namespace iofab {

// MemAvailable from /proc/meminfo, in bytes; 0 when unknown.
uint64_t mem_available_bytes();

}  // namespace iofab
