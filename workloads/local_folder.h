// A phase's folder on node-local storage beside the target (the checkpoint's local tier, the
// training reads' cache): named after the run folder, and kept to the room the runner's
// preflight keeps on the target.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace iofab {

class ParamReader;

// "/mnt/fs/iofab-20261121T211400Z-3f9a2c" -> "iofab-20261121T211400Z-3f9a2c" ("iofab-local" for a
// path whose last name a store would refuse).
std::string local_run_folder_name(const std::string& run_dir_path);
// The margin kept free beside planned bytes: 64 MiB + 2%, as on the target.
inline uint64_t local_room_margin(uint64_t planned) { return (64ULL << 20) + planned / 50; }

// The suite-load check of a node-local folder param (key: "cache_dir", "local_dir"), made where this host
// can tell, before anything is written (the phase checks again on every node): refused on r when path is
// a device or not a folder, and, with must_exist, when it does not exist.
void check_local_folder_param(ParamReader& r, std::string_view key, const std::string& path, bool must_exist);

}  // namespace iofab
