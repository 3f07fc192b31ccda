# Unity builds for the four layer libraries: their objects compiled in batches of 12 files, so the headers
# every file includes (nlohmann/json.hpp above all) are parsed once a batch instead of once a file. A cold
# build of the iofab target is what ci/quickstart and each of CI's builds (default, ASan, TSan, fuzz) pay.
# IOFAB_UNITY=OFF builds a file an object: faster to rebuild after editing one file, and it checks that every
# file includes what it uses (a unity batch hides a missing include that an earlier file of the batch has).
option(IOFAB_UNITY "Build the layer libraries in unity batches" ON)
set(IOFAB_UNITY_BATCH 12)

# Files that define, in their anonymous namespace, a name another file of their layer also defines (the
# restore, model_load and checkpoint results' helpers of the same names), whose class holds a member of an
# anonymous-namespace type (-Wsubobject-linkage fires once another file shares the object), or that include
# CUDA's headers: compiled alone. A new file that collides fails the unity build with "redefinition of" naming both: rename
# the local (the collective ops' one-op files each put run, check and fill in a namespace of their own), or
# add the file here.
set(IOFAB_UNITY_ALONE
  harness/rdma/gpu_memory_cuda.cc
  workloads/model_load/results.cc
  workloads/restore/results.cc
  workloads/train_read/torch_loader_profile.cc
)

function(iofab_unity target)
  if(IOFAB_UNITY)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${IOFAB_UNITY_BATCH})
  endif()
endfunction()

# The test binary too, in batches of 8 (its files each parse GoogleTest and json; one object a file was most
# of each of CI's builds). Its files that clash are listed in tests/CMakeLists.txt (IOFAB_UNITY_TESTS_ALONE).
# Not in the TSan build: it compiles a subset of the test files (tests/CMakeLists.txt), whose batches would
# pair files that never share one in the full binary.
set(IOFAB_UNITY_TEST_BATCH 8)
function(iofab_unity_tests target)
  if(IOFAB_UNITY AND NOT IOFAB_TSAN)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${IOFAB_UNITY_TEST_BATCH})
  endif()
endfunction()
list(TRANSFORM IOFAB_UNITY_ALONE PREPEND ${PROJECT_SOURCE_DIR}/)
set_source_files_properties(${IOFAB_UNITY_ALONE} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
