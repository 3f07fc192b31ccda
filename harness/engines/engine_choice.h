// "auto" in a suite means the fastest engine this machine can use now:
// io_uring where the kernel (and any seccomp filter) allows it, else psync.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace iofab {

std::string resolve_engine_name(std::string_view name);
// False for an engine that moves no bytes (null): what a phase would verify in the bytes it reads is then
// not measured. "auto" and unknown names: true. (The engine table's rows say; engine_table.cc.)
bool engine_moves_data(std::string_view name);
// How the engine named name runs here, for the report's engine_mode, where its rows says the figures
// depend on it (cuFile: GDS or its compatibility path); none for the others and for unknown names.
std::optional<std::string> engine_mode_text(std::string_view name);

}  // namespace iofab
