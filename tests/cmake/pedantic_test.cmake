# pedantic_test.cmake: the README's five-minute tutorial, taken from README.md itself
# (the first ```c block under "Five-minute tutorial", so the two cannot drift apart),
# compiles without a warning under -std=c11 -Wall -Wextra -Wpedantic -Werror with
# the C compiler and, when installed, clang; every public header does too, and in
# C++17 (g++ and clang++) with the test alone, culprit_perf_test(f): C++ has
# designated initializers only from C++20 (docs/api.md).
# In: SOURCE_DIR, BUILD_DIR, WORK_DIR, C_COMPILER.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
set(dir "${WORK_DIR}/pedantic")
file(REMOVE_RECURSE "${dir}")
file(MAKE_DIRECTORY "${dir}")

file(READ "${SOURCE_DIR}/README.md" readme)
string(FIND "${readme}" "## Five-minute tutorial" at)
if(at LESS 0)
  message(FATAL_ERROR "README.md has no 'Five-minute tutorial' section")
endif()
string(SUBSTRING "${readme}" ${at} -1 readme)
string(FIND "${readme}" "```c\n" begin)
string(FIND "${readme}" "\n```\n" end)
if(begin LESS 0 OR end LESS begin)
  message(FATAL_ERROR "no ```c block in README.md's tutorial")
endif()
math(EXPR begin "${begin} + 5")
math(EXPR len "${end} - ${begin} + 1")
string(SUBSTRING "${readme}" ${begin} ${len} tutorial)
file(WRITE "${dir}/fib_perf.c" "${tutorial}")
# The tutorial's own fib.h: a declaration, as the user's library has it.
file(WRITE "${dir}/fib.h" "int fib(int n);\n")

# Every public header, in one translation unit (version.h is generated).
file(GLOB headers RELATIVE "${SOURCE_DIR}/include" "${SOURCE_DIR}/include/culprit/*.h")
set(all "")
foreach(h IN LISTS headers)
  string(APPEND all "#include <${h}>\n")
endforeach()
file(WRITE "${dir}/all_headers.c" "${all}int culprit_pedantic_unused;\n")
# C++17: the tutorial with its tests declared without options.
string(REGEX REPLACE "culprit_perf_test\\(([a-z_0-9]+),[^)]*\\)" "culprit_perf_test(\\1)"
       tutorial_cxx "${tutorial}")
file(WRITE "${dir}/fib_perf_cxx17.cpp" "${tutorial_cxx}")
file(WRITE "${dir}/all_headers.cpp" "${all}int culprit_pedantic_unused;\n")

set(flags -Wall -Wextra -Wpedantic -Werror "-I${SOURCE_DIR}/include" "-I${BUILD_DIR}/include"
          "-I${dir}")
set(c_compilers "${C_COMPILER}")
find_program(CLANG clang)
find_program(GXX g++)
find_program(CLANGXX clang++)
if(CLANG)
  list(APPEND c_compilers "${CLANG}")
endif()
set(checked "")
foreach(cc IN LISTS c_compilers)
  foreach(src IN ITEMS fib_perf.c all_headers.c)
    run_or_fail(COMMAND "${cc}" -std=c11 ${flags} -c "${dir}/${src}" -o "${dir}/out.o")
  endforeach()
  list(APPEND checked "${cc} -std=c11")
endforeach()
foreach(cxx IN ITEMS "${GXX}" "${CLANGXX}")
  if(cxx)
    foreach(src IN ITEMS fib_perf_cxx17.cpp all_headers.cpp)
      run_or_fail(COMMAND "${cxx}" -std=c++17 ${flags} -c "${dir}/${src}" -o "${dir}/out.o")
    endforeach()
    list(APPEND checked "${cxx} -std=c++17")
  endif()
endforeach()
if(NOT GXX AND NOT CLANGXX)
  message(STATUS "no C++ compiler: C++17 not checked")
endif()
message(STATUS "pedantic-clean: ${checked}")
