// A phase's folder on node-local storage beside the target (the checkpoint's local tier, the
// training reads' cache): named after the run folder, and kept to the room the runner's
// preflight keeps on the target.
#pragma once

#include <cstdint>
#include <string>

namespace iofab {

// "/mnt/fs/iofab-20261121T211400Z-3f9a2c" -> "iofab-20261121T211400Z-3f9a2c" ("iofab-local" for a
// path whose last name a store would refuse).
std::string local_run_folder_name(const std::string& run_dir_path);
// The margin kept free beside planned bytes: 64 MiB + 2%, as on the target.
inline uint64_t local_room_margin(uint64_t planned) { return (64ULL << 20) + planned / 50; }

}  // namespace iofab
