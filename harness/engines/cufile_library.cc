// cuFile loaded with dlopen: the library, its entry points, and what a failed call's status says.
#include "harness/engines/cufile_library.h"

#include <dlfcn.h>

#include <string>

#include "harness/engines/cufile_engine.h"

namespace iofab {

namespace {

namespace abi = cufile_abi;

constexpr const char* kLibraryNames[] = {"libcufile.so.0", "libcufile.so"};

template <class Fn>
bool resolve(void* lib, const char* symbol, Fn* fn, std::string* missing) {
  *fn = reinterpret_cast<Fn>(dlsym(lib, symbol));
  if (*fn == nullptr && missing->empty()) *missing = symbol;
  return *fn != nullptr;
}

}  // namespace

bool load_cufile_api(std::span<const char* const> names, CufileApi* api, std::string* why) {
  std::string first;
  std::string tried;
  for (const char* name : names) {
    void* lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    std::string problem;
    if (lib == nullptr) {
      const char* e = dlerror();
      problem = e != nullptr ? e : std::string(name) + ": cannot be loaded";
    } else {
      CufileApi a;
      a.lib = lib;
      a.name = name;
      std::string missing;
      resolve(lib, "cuFileDriverOpen", &a.driver_open, &missing);
      // cufile.h maps cuFileDriverClose to the reference-counted _v2 where the library has it.
      a.driver_close = reinterpret_cast<abi::DriverCloseFn>(dlsym(lib, "cuFileDriverClose_v2"));
      if (a.driver_close == nullptr) resolve(lib, "cuFileDriverClose", &a.driver_close, &missing);
      resolve(lib, "cuFileDriverGetProperties", &a.driver_get_properties, &missing);
      resolve(lib, "cuFileHandleRegister", &a.handle_register, &missing);
      resolve(lib, "cuFileHandleDeregister", &a.handle_deregister, &missing);
      resolve(lib, "cuFileBufRegister", &a.buf_register, &missing);
      resolve(lib, "cuFileBufDeregister", &a.buf_deregister, &missing);
      resolve(lib, "cuFileRead", &a.read, &missing);
      resolve(lib, "cuFileWrite", &a.write, &missing);
      if (missing.empty()) {
        *api = a;
        return true;
      }
      problem = std::string(name) + ": undefined symbol " + missing;
      dlclose(lib);
    }
    if (first.empty()) {
      first = problem;
    } else {
      tried += tried.empty() ? " (also tried " : ", ";
      tried += name;
    }
  }
  *why = "cuFile not found: " + first + (tried.empty() ? "" : tried + ")");
  return false;
}

const CufileApi* process_cufile_api(std::string* why) {
  static std::string load_error;
  static const CufileApi* api = [] {
    auto* a = new CufileApi;
    if (load_cufile_api(kLibraryNames, a, &load_error)) return static_cast<const CufileApi*>(a);
    delete a;
    return static_cast<const CufileApi*>(nullptr);
  }();
  if (api == nullptr) *why = load_error;
  return api;
}

std::string cufile_status_text(const char* call, abi::Error e) {
  std::string s = std::string(call) + ": " + cufile_error_text(e.err);
  if (e.err == 5011) s += ", CUDA driver error " + std::to_string(e.cu_err);
  return s;
}

Status probe_cufile_library(std::span<const char* const> names) {
  CufileApi api;
  std::string why;
  if (!load_cufile_api(names, &api, &why)) return Status::Unavailable(why);
  // Left loaded: like process_api's, a loaded cuFile is never unloaded.
  return Status::Ok();
}

}  // namespace iofab
