# The layers, bottom to top, and what each folder may include. One CMake
# library per layer, each linking only the layers below it; CheckLayers.cmake
# runs before any of them compiles and fails the build on an upward include.
#
#   platform   harness/{core,stats,fs,gpu,telemetry,comm,engines,s3,rdma,store,results,phase}
#   workloads  workloads/         the phases (a folder each) and their table
#   reports    reports/           output formats, compare
#   driver     driver/{suite,targets,runner,cli}   reads the suite, runs it, writes reports
set(IOFAB_PLATFORM_DIRS core stats fs gpu telemetry comm engines s3 rdma store results phase)
set(IOFAB_DRIVER_DIRS suite targets runner cli)

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

set(_platform "")
foreach(d IN LISTS IOFAB_PLATFORM_DIRS)
  list(APPEND _platform harness/${d})
endforeach()
set(_driver "")
foreach(d IN LISTS IOFAB_DRIVER_DIRS)
  list(APPEND _driver driver/${d})
endforeach()
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
  COMMENT "Checking that no file includes a layer above its own"
  VERBATIM)
add_custom_target(iofab_layer_check DEPENDS ${CMAKE_CURRENT_BINARY_DIR}/layers.checked)
