# The one list of layers, bottom to top: each folder and the folders it includes directly. A folder may
# always include itself and, through these, everything below them (the closure). Layers.cmake makes the
# libraries from it (harness/* the platform, workloads, reports, driver/*) and CheckLayers.cmake enforces
# it on every #include; a new folder is one row here.
#
# Inside the platform: core < stats, fs, gpu, telemetry < comm, engines, rdma < s3 (the S3 client and its
# engine) < store < results < phase. The driver's folders are ordered too: suite (reads the suite) <
# targets (the kinds of targets) < runner (runs it) < cli (the commands).
set(IOFAB_LAYER_TABLE
  "harness/core:"
  "harness/stats:harness/core"
  "harness/fs:harness/core"
  "harness/gpu:harness/core"
  "harness/telemetry:harness/core"
  "harness/comm:harness/gpu"
  "harness/engines:harness/stats,harness/fs"
  "harness/rdma:harness/gpu"
  "harness/s3:harness/engines"
  "harness/store:harness/s3"
  "harness/results:harness/core"
  "harness/phase:harness/telemetry,harness/comm,harness/rdma,harness/store,harness/results"
  "workloads:harness/phase"
  "reports:workloads"
  "driver/suite:reports"
  "driver/targets:driver/suite"
  "driver/runner:driver/targets"
  "driver/cli:driver/runner")

# IOFAB_LAYER_FOLDERS: the folders in order; RULE_<folder>: the folder and every folder it may include.
# Rows come bottom to top, so each row's closure is made from rows already read.
set(IOFAB_LAYER_FOLDERS "")
foreach(row IN LISTS IOFAB_LAYER_TABLE)
  string(REPLACE ":" ";" parts "${row}")
  list(GET parts 0 folder)
  set(closure "${folder}")
  list(LENGTH parts n)
  if(n GREATER 1)
    list(GET parts 1 below)
    string(REPLACE "," ";" below "${below}")
    foreach(b IN LISTS below)
      if(NOT DEFINED "RULE_${b}")
        message(FATAL_ERROR "cmake/LayerTable.cmake: ${folder} names ${b}, which is no row above it")
      endif()
      list(APPEND closure ${RULE_${b}})
    endforeach()
  endif()
  list(REMOVE_DUPLICATES closure)
  set("RULE_${folder}" "${closure}")
  list(APPEND IOFAB_LAYER_FOLDERS "${folder}")
endforeach()
