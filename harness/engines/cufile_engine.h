// cufile: GPUDirect Storage through NVIDIA's cuFile library, loaded at run
// time (dlopen of libcufile.so.0, then libcufile.so), so builds never need
// cuFile's headers or libraries.
//
// Phases fill and verify data in host buffers, so the engine keeps a device
// buffer per registered host buffer (cudaMalloc'd, cuFileBufRegister'ed): a
// write copies the host block to the device and cuFileWrite's it from there;
// a read cuFileRead's into the device buffer and copies it back to the host.
// Every I/O's time therefore includes one host<->device copy of its bytes.
// Synchronous, like psync: every queue() answers kCompleted.
//
// Thread-safety: an engine belongs to one worker thread at a time (see
// engine.h). The free functions are safe from any thread.
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "harness/core/status.h"
#include "harness/engines/engine.h"

namespace iofab {

// ---- For the engine table.

// Whether the engine can run here, without opening the cuFile driver (which
// is slow, and writes a cufile.log): CUDA in the build, the library, a CUDA
// device, and a data path the configuration allows. On false, *reason says
// why: "built without CUDA", "cuFile not found: libcufile.so.0: cannot open
// shared object file: ...", "no CUDA device: ...". *mode (either way, when
// known) describes the data path: GPUDirect or compat mode, and why.
// Probed once per process.
bool cufile_usable(std::string* reason, std::string* mode);

Status make_cufile_engine(const EngineOptions& opts, std::unique_ptr<Engine>* out);

// The data path as this process sees it now, for a phase's details: the
// probe's description, refined by cuFileDriverGetProperties once an engine
// has opened the driver. Empty when the engine cannot run here.
std::string cufile_mode_text();

// ---- The pieces, exposed for tests.

// Opens the first of names that loads and has every cuFile symbol the engine
// calls, then closes it. Unavailable("cuFile not found: <the loader's message
// for the first name>") when none does.
Status probe_cufile_library(std::span<const char* const> names);

// A cuFile status code (CUfileOpError, 5000 and up) as text:
// "nvidia-fs driver is not loaded (5001)".
std::string cufile_error_text(int code);

// A cuFileRead/cuFileWrite return value and the errno after it, as an
// IoCompletion result: the byte count, or -errno (cuFile's own codes mapped
// to the nearest errno: EINVAL, EOPNOTSUPP, ENOMEM, else EIO).
int64_t cufile_io_result(ssize_t ret, int saved_errno);

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
using EnvLookup = std::function<std::optional<std::string>(std::string_view)>;
CufileModeFacts read_cufile_mode_facts(const EnvLookup& env, const std::string& root);

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
int pick_cufile_device(int count, const EnvLookup& env);

// The environment of this process, for the functions above.
std::optional<std::string> process_env(std::string_view name);

// ---- The CUDA runtime side: cufile_engine_cuda.cc when CUDA is built, else
// cufile_engine.cc, whose versions answer Unavailable("built without CUDA").
namespace cufile_cuda {
Status device_count(int* n);    // Unavailable("no CUDA device: ...") when there is none
Status use_device(int device);  // makes it current on the calling thread
Status alloc(size_t bytes, void** p);
void release(void* p);
Status to_device(void* dst, const void* src, size_t n);
Status to_host(void* dst, const void* src, size_t n);
}  // namespace cufile_cuda

}  // namespace iofab
