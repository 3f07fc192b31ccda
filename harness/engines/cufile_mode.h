// cuFile's data path, GPUDirect or compat mode, decided from the facts cuFile itself reads, and the CUDA
// device a rank uses (cufile_mode.cc).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "harness/core/status.h"

namespace iofab {

// What decides whether cuFile does GPUDirect I/O or falls back to POSIX I/O
// through host memory (compat mode). Unset: cuFile's default applies.
struct CufileModeFacts {
  std::optional<bool> env_force_compat;   // CUFILE_FORCE_COMPAT_MODE
  std::optional<bool> env_allow_compat;   // CUFILE_ALLOW_COMPAT_MODE
  std::string config_path;                // CUFILE_ENV_PATH_JSON, else /etc/cufile.json
  std::string config_error;               // set when the file exists but could not be read
  std::optional<bool> json_force_compat;  // properties.force_compat_mode
  std::optional<bool> json_allow_compat;  // properties.allow_compat_mode
  std::optional<bool> json_pci_p2pdma;    // properties.use_pci_p2pdma
  bool nvfs_loaded = false;               // /proc/driver/nvidia-fs exists
  // From cuFileDriverGetProperties, once the driver is open.
  std::optional<bool> props_allow_compat;  // dcontrolflags' allow-compat bit
  std::optional<unsigned> nvfs_major;
  std::optional<unsigned> nvfs_minor;
};

// env(name) -> the variable's value, or nullopt. root: "/" on a real
// machine (the config file and /proc are read under it).
using CufileEnvLookup = std::function<std::optional<std::string>(std::string_view)>;
CufileModeFacts read_cufile_mode_facts(const CufileEnvLookup& env, const std::string& root);

// Reads a cufile.json text (comments allowed, as NVIDIA's own file has them)
// into facts' json_* fields; an error names what is wrong.
Status parse_cufile_config(std::string_view text, CufileModeFacts* facts);

struct CufileMode {
  bool compat = false;  // I/O goes through host memory (POSIX), not GPUDirect
  bool usable = true;   // false: cuFile I/O would fail (no GPUDirect path, compat not allowed)
  std::string text;     // one line for `iofab list` and phase details
};
CufileMode decide_cufile_mode(const CufileModeFacts& facts);

// The CUDA device a rank's engines use: the launcher's local rank (LOCAL_RANK,
// OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, SLURM_LOCALID, in that order)
// modulo count, else 0.
int pick_cufile_device(int count, const CufileEnvLookup& env);

// The environment of this process, for the functions above.
std::optional<std::string> process_env(std::string_view name);

}  // namespace iofab
