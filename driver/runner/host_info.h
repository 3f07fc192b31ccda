// What a rank's host is: for the report's `cluster` block.
#pragma once

#include <nlohmann/json.hpp>

namespace iofab {

// {hostname, cpus, memory_bytes, kernel, os, cuda_devices, rdma_devices}
nlohmann::json describe_host();

}  // namespace iofab
