// "auto" in a suite means the fastest engine this machine can use now:
// io_uring where the kernel (and any seccomp filter) allows it, else psync.
#pragma once

#include <string>
#include <string_view>

namespace iofab {

std::string resolve_engine_name(std::string_view name);

}  // namespace iofab
