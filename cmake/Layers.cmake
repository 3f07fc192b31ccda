# The layers, bottom to top, and what each folder may include: cmake/LayerTable.cmake, the one list this
# file and CheckLayers.cmake both read. One CMake library per layer, each linking only the layers below
# it; CheckLayers.cmake runs before any of them compiles and fails the build on an upward include.
# The libraries: platform (harness/*), workloads, reports, driver (driver/*).
include(${CMAKE_CURRENT_LIST_DIR}/LayerTable.cmake)

# The table's folders, by library: harness/* make the platform, driver/* the driver.
set(_platform "")
set(_driver "")
foreach(folder IN LISTS IOFAB_LAYER_FOLDERS)
  if(folder MATCHES "^harness/")
    list(APPEND _platform ${folder})
  elseif(folder MATCHES "^driver/")
    list(APPEND _driver ${folder})
  elseif(NOT folder MATCHES "^(workloads|reports)$")
    message(FATAL_ERROR "cmake/LayerTable.cmake: ${folder} belongs to no library (cmake/Layers.cmake)")
  endif()
endforeach()

# Sources of the given folders (harness/<sub>, driver/<sub>, workloads, reports), backends filtered out.
function(iofab_layer_sources out)
  set(globs "")
  foreach(dir IN LISTS ARGN)
    list(APPEND globs ${PROJECT_SOURCE_DIR}/${dir}/*.cc)
  endforeach()
  file(GLOB_RECURSE srcs CONFIGURE_DEPENDS ${globs})
  list(FILTER srcs EXCLUDE REGEX "_(${IOFAB_BACKEND_SUFFIXES})\\.cc$")
  list(FILTER srcs EXCLUDE REGEX "driver/cli/main\\.cc$")
  foreach(dir IN LISTS ARGN)
    foreach(b IN LISTS IOFAB_BACKEND_SOURCES)
      if(b MATCHES "^${PROJECT_SOURCE_DIR}/${dir}/")
        list(APPEND srcs ${b})
      endif()
    endforeach()
  endforeach()
  set(${out} ${srcs} PARENT_SCOPE)
endfunction()

iofab_layer_sources(IOFAB_PLATFORM_SOURCES ${_platform})
iofab_layer_sources(IOFAB_WORKLOADS_SOURCES workloads)
iofab_layer_sources(IOFAB_REPORTS_SOURCES reports)
iofab_layer_sources(IOFAB_DRIVER_SOURCES ${_driver})

# The include check: every .cc and .h of the four layers, rescanned whenever one changes.
file(GLOB_RECURSE IOFAB_LAYERED_FILES CONFIGURE_DEPENDS
  ${PROJECT_SOURCE_DIR}/harness/*.cc ${PROJECT_SOURCE_DIR}/harness/*.h ${PROJECT_SOURCE_DIR}/harness/*.cu
  ${PROJECT_SOURCE_DIR}/workloads/*.cc ${PROJECT_SOURCE_DIR}/workloads/*.h
  ${PROJECT_SOURCE_DIR}/reports/*.cc ${PROJECT_SOURCE_DIR}/reports/*.h
  ${PROJECT_SOURCE_DIR}/driver/*.cc ${PROJECT_SOURCE_DIR}/driver/*.h)
set(_list ${CMAKE_CURRENT_BINARY_DIR}/layer_files.txt)
file(WRITE ${_list} "${IOFAB_LAYERED_FILES}")
add_custom_command(
  OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/layers.checked
  COMMAND ${CMAKE_COMMAND} -DROOT=${PROJECT_SOURCE_DIR} -DLIST=${_list}
          -DSTAMP=${CMAKE_CURRENT_BINARY_DIR}/layers.checked -P ${PROJECT_SOURCE_DIR}/cmake/CheckLayers.cmake
  DEPENDS ${IOFAB_LAYERED_FILES} ${PROJECT_SOURCE_DIR}/cmake/CheckLayers.cmake
          ${PROJECT_SOURCE_DIR}/cmake/LayerTable.cmake
  COMMENT "Checking that no file includes a layer above its own"
  VERBATIM)
add_custom_target(iofab_layer_check DEPENDS ${CMAKE_CURRENT_BINARY_DIR}/layers.checked)
