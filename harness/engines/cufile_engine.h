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
#include "harness/engines/cufile_errors.h"
#include "harness/engines/cufile_mode.h"
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
