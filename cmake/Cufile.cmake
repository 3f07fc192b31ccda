# NVIDIA's cufile.h, where the build machine has it: the cufile engine loads
# libcufile with dlopen and never needs the header, but where it is here its
# hand-written declarations (harness/engines/cufile_abi.h) are compiled against
# it (harness/engines/cufile_abi_check.h), so a struct layout, a handle type or
# an error code that differs fails the build instead of failing on a GPU node.
# IOFAB_CUFILE_INCLUDE_DIR names the folder by hand (a cufile wheel's
# nvidia/cufile/include, for one).
find_path(IOFAB_CUFILE_INCLUDE_DIR cufile.h
  HINTS ${CUDAToolkit_INCLUDE_DIRS} /usr/local/cuda/include /usr/local/cuda/targets/x86_64-linux/include
        /usr/local/cuda/targets/sbsa-linux/include $ENV{CUFILE_INCLUDE_DIR})
if(IOFAB_CUFILE_INCLUDE_DIR)
  set(_tu ${CMAKE_CURRENT_BINARY_DIR}/generated/cufile_abi_check.cc)
  file(WRITE ${_tu} "#include <cufile.h>\n#include \"harness/engines/cufile_abi_check.h\"\n")
  add_library(iofab_cufile_abi_check OBJECT ${_tu})
  target_include_directories(iofab_cufile_abi_check PRIVATE ${PROJECT_SOURCE_DIR} ${IOFAB_CUFILE_INCLUDE_DIR}
                                                            ${CUDAToolkit_INCLUDE_DIRS})
  message(STATUS "cuFile: cufile.h at ${IOFAB_CUFILE_INCLUDE_DIR}: the engine's declarations are checked against it")
else()
  message(STATUS "cuFile: no cufile.h here: the engine's declarations are not compiled against it "
                 "(ci/device-check does that on a GPU machine)")
endif()
