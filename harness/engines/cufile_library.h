// The process's cuFile library, loaded with dlopen (libcufile.so.0, then libcufile.so) so builds never
// need cuFile's headers or libraries: the entry points the cufile engine calls, and its status as text.
// Internal to harness/engines' cufile files.
#pragma once

#include <span>
#include <string>

#include "harness/engines/cufile_abi.h"

namespace iofab {

struct CufileApi {
  void* lib = nullptr;
  std::string name;
  cufile_abi::DriverOpenFn driver_open = nullptr;
  cufile_abi::DriverCloseFn driver_close = nullptr;
  cufile_abi::DriverGetPropertiesFn driver_get_properties = nullptr;
  cufile_abi::HandleRegisterFn handle_register = nullptr;
  cufile_abi::HandleDeregisterFn handle_deregister = nullptr;
  cufile_abi::BufRegisterFn buf_register = nullptr;
  cufile_abi::BufDeregisterFn buf_deregister = nullptr;
  cufile_abi::ReadFn read = nullptr;
  cufile_abi::WriteFn write = nullptr;
};

// Opens the first of names that has every symbol. On failure, why names the
// first library's problem (the versioned name is the one a GDS install has).
bool load_cufile_api(std::span<const char* const> names, CufileApi* api, std::string* why);

// The process's cuFile, loaded once and never unloaded: the library starts
// threads and registers with the CUDA driver, so dlclose is not safe.
// nullptr, with *why set, when it cannot be loaded.
const CufileApi* process_cufile_api(std::string* why);

// "cuFileBufRegister: invalid device pointer (5012)" (with the CUDA driver's error for 5011).
std::string cufile_status_text(const char* call, cufile_abi::Error e);

}  // namespace iofab
