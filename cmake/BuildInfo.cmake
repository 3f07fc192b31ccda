# Writes OUT with the version, git sha and compiler; rewritten only when they change.
execute_process(COMMAND git -C ${SRC} rev-parse --short=12 HEAD OUTPUT_VARIABLE sha
                OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR sha STREQUAL "")
  set(sha "unknown")
endif()
execute_process(COMMAND git -C ${SRC} status --porcelain --untracked-files=no OUTPUT_VARIABLE dirty
                OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT dirty STREQUAL "")
  string(APPEND sha "-dirty")
endif()
string(REPLACE ";" "," backends "${BACKENDS}")
file(WRITE ${OUT}.tmp "// Generated; do not edit.\n#include \"harness/core/build_info.h\"\n\nnamespace iofab {\n\nconst BuildInfo& build_info() {\n  static const BuildInfo kInfo{\"${VERSION}\", \"${sha}\", \"${COMPILER}\", \"${BUILD_TYPE}\", \"${backends}\"};\n  return kInfo;\n}\n\n}  // namespace iofab\n")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
