# ninja_test.cmake: culprit builds with Ninja and Ninja Multi-Config, the generators
# of IDEs' CMake integrations, with its own tests configured (so clang, when
# installed, adds the trace fixture that once made Ninja refuse the build: "multiple
# rules generate tests/trace/trace_clang_fixture"), and a consumer builds with Ninja
# against what that build installs. Ninja reads the whole manifest before building
# anything, so a clash anywhere in it fails here even for the targets built.
# When this suite's own build is a Ninja build (as .ci/run makes it), that build is
# the Ninja build of culprit with its tests configured: its manifest is loaded again
# (ninja -n of the targets below) and the consumer builds against its install (the
# cmake_install fixture) instead of a second build of the library (about 25 s of CPU:
# docs/development.md, "How long the suite takes").
# In: SOURCE_DIR, WORK_DIR, C_COMPILER, CTEST, GENERATOR, BUILD_DIR, PREFIX.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
find_program(NINJA ninja)
if(NOT NINJA)
  message(STATUS "ninja not found: Ninja build skipped (install ninja-build)")
  return()
endif()
find_program(CLANG clang)
set(dir "${WORK_DIR}/ninja")
file(REMOVE_RECURSE "${dir}")
set(options "-DCMAKE_C_COMPILER=${C_COMPILER}" -DCULPRIT_TEST_SANITIZERS=OFF
            -DCULPRIT_BUILD_EXAMPLES=OFF "-DCMAKE_MAKE_PROGRAM=${NINJA}")

# Ninja: the library, the command, the trace runtime (and clang's fixture), installed.
set(targets culprit culprit_shared culprit_trace culprit_cli culprit_man)
if(CLANG)
  list(APPEND targets trace_clang_fixture)
endif()
if(GENERATOR STREQUAL "Ninja" AND EXISTS "${BUILD_DIR}/build.ninja")
  # This suite's build: its whole manifest loaded again, the targets known (a dry run
  # builds nothing), and its install (cmake_install) for the consumer.
  run_or_fail(COMMAND "${NINJA}" -C "${BUILD_DIR}" -n ${targets})
  set(installed "${PREFIX}")
else()
  # Debug (-O0): what is tested is the generator, not the code, which the main build
  # compiles optimized; unoptimized, the compiler's CPU time is about a third less.
  run_or_fail(COMMAND "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${dir}/culprit" -G Ninja
                      -DCMAKE_BUILD_TYPE=Debug ${options})
  run_or_fail(COMMAND "${CMAKE_COMMAND}" --build "${dir}/culprit" --parallel 2 --target ${targets})
  set(installed "${dir}/prefix")
  run_or_fail(COMMAND "${CMAKE_COMMAND}" --install "${dir}/culprit" --prefix "${installed}")
endif()

# Ninja Multi-Config: generated and loaded (a dry run of every configuration's
# manifest), not built a second time.
run_or_fail(COMMAND "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${dir}/culprit-multi"
                    -G "Ninja Multi-Config" ${options})
foreach(config IN ITEMS Debug Release RelWithDebInfo)
  run_or_fail(COMMAND "${CMAKE_COMMAND}" --build "${dir}/culprit-multi" --config ${config}
                      -- -n)
endforeach()

# A consumer with Ninja against the Ninja-built culprit; ctest lists its perf tests.
run_or_fail(COMMAND "${CMAKE_COMMAND}" -S "${CMAKE_CURRENT_LIST_DIR}/consumer"
                    -B "${dir}/consumer" -G Ninja "-DCMAKE_C_COMPILER=${C_COMPILER}"
                    "-DCMAKE_MAKE_PROGRAM=${NINJA}" "-DCMAKE_PREFIX_PATH=${installed}")
run_or_fail(COMMAND "${CMAKE_COMMAND}" --build "${dir}/consumer")
ctest_listing(json "${dir}/consumer")
ctest_listing_names(names "${json}")
list(REMOVE_ITEM names consumer_culprit_command) # the command's target, not a perf test
if(NOT names STREQUAL "consumer_perf.sum_small;consumer_perf.sum_large")
  message(FATAL_ERROR "the Ninja-built consumer lists: ${names}")
endif()
if(CLANG)
  message(STATUS "Ninja build ok, with clang's trace fixture")
else()
  message(STATUS "Ninja build ok (clang not installed: its fixture not built)")
endif()
