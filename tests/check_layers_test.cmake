# cmake/CheckLayers.cmake on planted violations: each case writes one scratch tree, runs the check on it and
# expects it to fail naming the planted file and the kind of violation; a tree that keeps the rules
# (including near misses: a Store's open(), a comment) passes. Run as:
#   cmake -DCHECK=cmake/CheckLayers.cmake -DSCRATCH=folder -P check_layers_test.cmake
cmake_minimum_required(VERSION 3.25)

set(failures "")

# Writes the files (path, text, path, text, ...) under a fresh ${SCRATCH}/name and runs the check on them.
function(run_check name result_var output_var)
  set(root "${SCRATCH}/${name}")
  file(REMOVE_RECURSE "${root}")
  set(files "")
  set(args ${ARGN})
  list(LENGTH args n)
  math(EXPR last "${n} - 1")
  foreach(i RANGE 0 ${last} 2)
    math(EXPR j "${i} + 1")
    list(GET args ${i} path)
    list(GET args ${j} text)
    file(WRITE "${root}/${path}" "${text}\n")
    list(APPEND files "${root}/${path}")
  endforeach()
  file(WRITE "${root}.list" "${files}")
  execute_process(COMMAND ${CMAKE_COMMAND} -DROOT=${root} -DLIST=${root}.list -DSTAMP=${root}.stamp
                          -P ${CHECK}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(${result_var} "${rc}" PARENT_SCOPE)
  set(${output_var} "${out}${err}" PARENT_SCOPE)
endfunction()

# The check must fail on the planted tree, and its message must hold each of the expected texts.
function(expect_caught name expected)
  run_check(${name} rc output ${ARGN})
  if(rc EQUAL 0)
    set(failures "${failures}${name}: the check passed; expected it to fail\n" PARENT_SCOPE)
    return()
  endif()
  foreach(e IN LISTS expected)
    string(FIND "${output}" "${e}" at)
    if(at EQUAL -1)
      set(failures "${failures}${name}: the message lacks \"${e}\":\n${output}\n" PARENT_SCOPE)
      return()
    endif()
  endforeach()
endfunction()

# Each planted violation: name | what the message must say (naming the file) | the file | its one line.
set(planted
  "upward_include|harness/core/bad.h includes harness/store/store.h|harness/core/bad.h|#include \"harness/store/store.h\""
  "platform_includes_workloads|harness/phase/p.cc includes workloads/phase_table.h|harness/phase/p.cc|#include \"workloads/phase_table.h\""
  "targets_includes_cli|driver/targets/folder/clean.cc includes driver/cli/commands.h|driver/targets/folder/clean.cc|#include \"driver/cli/commands.h\""
  "targets_includes_runner|driver/targets/agree.cc includes driver/runner/same_run.h|driver/targets/agree.cc|#include \"driver/runner/same_run.h\""
  "suite_includes_targets|driver/suite/suite.cc includes driver/targets/run_target.h|driver/suite/suite.cc|#include \"driver/targets/run_target.h\""
  "runner_includes_cli|driver/runner/r.h includes driver/cli/commands.h|driver/runner/r.h|#include \"driver/cli/commands.h\""
  "posix_by_arrow|workloads/x/params.cc calls the filesystem around its Store (if (stat(p->cache_dir.c_str()|workloads/x/params.cc|  if (stat(p->cache_dir.c_str(), &st) != 0) return"
  "posix_by_dot|workloads/x/file.cc calls the filesystem around its Store (int fd = open(opts.path.c_str()|workloads/x/file.cc|  int fd = open(opts.path.c_str(), O_RDONLY)"
  "posix_literal|workloads/x/lit.cc calls the filesystem around its Store (::stat(|workloads/x/lit.cc|  ::stat(\"/proc/self\", &st)"
  "posix_namespace|workloads/x/ren.cc calls the filesystem around its Store (rename(|workloads/x/ren.cc|  rename(from, to)"
  "filesystem_call|workloads/x/fs.cc calls the filesystem around its Store (bool same = std::filesystem::equivalent|workloads/x/fs.cc|  bool same = std::filesystem::equivalent(a, b, ec)"
  "filesystem_include|workloads/x/inc.cc calls the filesystem around its Store (#include <filesystem>|workloads/x/inc.cc|#include <filesystem>"
  "folder_in_no_layer|harness/newfolder/n.cc: harness/newfolder/ is in no layer|harness/newfolder/n.cc|int n")
foreach(row IN LISTS planted)
  string(REPLACE "|" ";" fields "${row}")
  list(GET fields 0 name)
  list(GET fields 1 expected)
  list(GET fields 2 path)
  list(GET fields 3 text)
  expect_caught(${name} "${expected}" ${path} "${text}")
endforeach()

# A phase kind's name as a string literal outside workloads/ (the kinds come from the scratch tree's
# phase table), in the driver and in reports; a comment on another line does not excuse it. (No ';' in a
# planted text: the texts travel as a CMake list.)
set(table "workloads/phase_table.cc" "      {.name = \"ingest\",\n      {.name = \"checkpoint\",")
expect_caught(phase_literal_driver "driver/suite/scale.cc tests a phase kind by its name (\"checkpoint\""
  ${table} driver/suite/scale.cc "  // \"checkpoint\" is not a phase kind here\n  if (kind == \"checkpoint\") scale(p)")
expect_caught(phase_literal_reports "reports/plots.cc tests a phase kind by its name (\"ingest\""
  ${table} reports/plots.cc "  s.each_phase_of_kind(\"ingest\", draw)")

# Near misses that keep the rules: the check must pass them.
run_check(keeps_the_rules rc output
  workloads/x/ok.cc "#include \"harness/store/store.h\"\n  s = store.open(p->dir, &f);\n  f->stat(&st);\n// stat(p->x.c_str()) in a comment\n  std::string text = \"a filesystem\";"
  driver/cli/c.cc "#include \"driver/runner/runner.h\"\n#include \"driver/targets/run_target.h\"\n#include \"driver/suite/suite.h\""
  driver/targets/t.cc "#include \"driver/suite/target_scope.h\""
  harness/fs/f.cc "#include <filesystem>\n  std::filesystem::equivalent(a, b, ec);"
  ${table} workloads/x/kind.cc "  find_phase_kind(\"checkpoint\")"
  driver/cli/l.cc "  out[\"ingest\"] = 1  // not a phase kind: a section of list\n  err(\"[{\\\"kind\\\": \\\"ingest\\\"}]\")\n  // the \"ingest\" phase\n  x = \"ingested\"")
if(NOT rc EQUAL 0)
  string(APPEND failures "keeps_the_rules: the check failed on a tree that keeps the rules:\n${output}\n")
endif()

if(NOT failures STREQUAL "")
  message(FATAL_ERROR "${failures}")
endif()
message(STATUS "every planted violation caught, the clean tree passed")
