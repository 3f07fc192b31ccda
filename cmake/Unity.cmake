# Unity builds for the four layer libraries: their objects compiled in batches of 12 files, so the headers
# every file includes (nlohmann/json.hpp above all) are parsed once a batch instead of once a file. A cold
# build of the iofab target is what ci/quickstart and each of CI's builds (default, ASan, TSan, fuzz) pay.
# IOFAB_UNITY=OFF builds a file an object: faster to rebuild after editing one file, and it checks that every
# file includes what it uses (a unity batch hides a missing include that an earlier file of the batch has).
option(IOFAB_UNITY "Build the layer libraries in unity batches" ON)
set(IOFAB_UNITY_BATCH 12)

# Files that define, in their anonymous namespace, a name another file of their layer also defines (the
# collective ops' run/check/fill, local clocks, local constants), or that include CUDA's headers: compiled
# alone. A new file that collides fails the unity build with "redefinition of" naming both: rename the
# local, or add the file here.
set(IOFAB_UNITY_ALONE
  driver/targets/folder/target_agreement.cc
  harness/rdma/gpu_memory_cuda.cc
  harness/store/memory_store.cc
  reports/side_by_side.cc
  reports/svg_plot.cc
  workloads/checkpoint/tier_recovery.cc
  workloads/checkpoint/torch_framing.cc
  workloads/collectives/ops/all_reduce.cc
  workloads/collectives/ops/all_to_all.cc
  workloads/collectives/ops/broadcast.cc
  workloads/collectives/ops/gather.cc
  workloads/collectives/ops/reduce.cc
  workloads/collectives/ops/reduce_scatter.cc
  workloads/collectives/ops/scatter.cc
  workloads/collectives/ops/sendrecv.cc
  workloads/collectives/sweep.cc
  workloads/dataset/dataset_files.cc
  workloads/model_load/results.cc
  workloads/rdma/rdma_loops.cc
  workloads/rdma/rdma_results.cc
  workloads/restore/reader.cc
  workloads/restore/restore_phase.cc
  workloads/restore/results.cc
  workloads/restore/slice_reader.cc
  workloads/train_read/epoch_order.cc
  workloads/train_read/mlperf_rules.cc
  workloads/train_read/sampler.cc
  workloads/train_read/torch_loader_profile.cc
  workloads/train_read/train_cache_results.cc
  workloads/train_read/train_read_results.cc
)

function(iofab_unity target)
  if(IOFAB_UNITY)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${IOFAB_UNITY_BATCH})
  endif()
endfunction()

# The test binary too, in batches of 8 (its files each parse GoogleTest and json; one object a file was most
# of each of CI's builds). Its files that clash are listed in tests/CMakeLists.txt (IOFAB_UNITY_TESTS_ALONE).
set(IOFAB_UNITY_TEST_BATCH 8)
function(iofab_unity_tests target)
  if(IOFAB_UNITY)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${IOFAB_UNITY_TEST_BATCH})
  endif()
endfunction()
list(TRANSFORM IOFAB_UNITY_ALONE PREPEND ${PROJECT_SOURCE_DIR}/)
set_source_files_properties(${IOFAB_UNITY_ALONE} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
