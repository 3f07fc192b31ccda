function(iofab_set_warnings target)
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor>)
  if(IOFAB_WERROR)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Werror>)
  endif()
endfunction()

if(IOFAB_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  # Not position-independent: UBSan's per-check data (about 120 MB of pointers in .data here) needs no
  # relocation at load then, and a start of iofab_tests took 0.6 s instead of 2.1 s, of iofab 0.2 s
  # instead of 0.6 s: per test over the suite, and a `timeout 0.5` around a run found iofab before main.
  add_link_options(-fsanitize=address,undefined -no-pie)
endif()

if(IOFAB_FUZZ)
  # Coverage for the fuzzer in every object; the fuzzer's main() only in fuzz targets.
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()

option(IOFAB_TSAN "Build with ThreadSanitizer" OFF)
if(IOFAB_TSAN)
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
endif()

# The release (RelWithDebInfo: the default preset, ci/quickstart's build), sanitizer and fuzz builds keep
# line tables only (-g1, after the build type's -g): a backtrace, perf's annotation and the sanitizers'
# reports still name every frame's function, file and line, and a cold build (ci/quickstart on a fresh
# clone, each of CI's builds) takes about a quarter less compile time than with full debug info, which only a
# debugger's variables need. The Debug preset keeps full -g.
if(IOFAB_SANITIZE OR IOFAB_TSAN OR IOFAB_FUZZ OR CMAKE_BUILD_TYPE STREQUAL "RelWithDebInfo")
  add_compile_options(-g1)
endif()
