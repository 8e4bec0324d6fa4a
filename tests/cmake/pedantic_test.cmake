# pedantic_test.cmake: the README's five-minute tutorial, taken from README.md itself
# (the first ```c block under "Five-minute tutorial", so the two cannot drift apart),
# compiles without a warning under -std=c11 and -std=c99 -Wall -Wextra -Wpedantic
# -Werror with the C compiler and, when installed, clang (the headers also under a
# strict library's warnings; -std=c89 gets culprit.h's own error); every public
# header does too, and in C++17 (g++ and clang++) with the test alone, culprit_perf_test(f): C++ has
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
  foreach(std IN ITEMS c11 c99)
    foreach(src IN ITEMS fib_perf.c all_headers.c)
      run_or_fail(COMMAND "${cc}" -std=${std} ${flags} -c "${dir}/${src}" -o "${dir}/out.o")
    endforeach()
    list(APPEND checked "${cc} -std=${std}")
  endforeach()
endforeach()
# The headers under a strict library's own warnings (cJSON's CMAKE_C_FLAGS, GCC's
# part), which a perf test added to that library's build inherits.
set(strict -Wstrict-prototypes -Wwrite-strings -Wshadow -Winit-self -Wcast-align -Wformat=2
           -Wmissing-prototypes -Wstrict-overflow=2 -Wcast-qual -Wundef -Wswitch-default
           -Wconversion -Wc++-compat -Wdouble-promotion -Wunused-macros -Wswitch-enum)
run_or_fail(COMMAND "${C_COMPILER}" -std=c99 ${flags} ${strict} -c "${dir}/all_headers.c"
                    -o "${dir}/out.o")
list(APPEND checked "${C_COMPILER} -std=c99 with cJSON's warnings")
# C89 (such a library's -std=c89) is refused by culprit.h's own message, which says
# what to do, before CMocka's header fails on `inline`.
execute_process(COMMAND "${C_COMPILER}" -std=c89 ${flags} -c "${dir}/fib_perf.c" -o "${dir}/out.o"
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
if(rc EQUAL 0 OR NOT err MATCHES "culprit.h needs C99 or later.*C_STANDARD 99")
  message(FATAL_ERROR "-std=c89: no error naming culprit.h's C99 need (rc ${rc}):\n${err}")
endif()
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
