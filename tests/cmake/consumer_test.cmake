# consumer_test.cmake: builds the tiny consumer project (consumer/) the ways a user
# would use culprit, lists its tests with ctest -N, then runs them:
#   MODE=installed   find_package(culprit) against the prefix install_test.cmake made
#   MODE=subdir      add_subdirectory() of culprit's source tree (as FetchContent does);
#                    its cmake --install installs nothing of culprit
#   MODE=pkgconfig   no CMake: cc $(pkg-config --cflags --libs culprit)
#   MODE=examples    examples/fib and examples/sort copied out of the tree, built
#                    standalone against the prefix
#   MODE=outside     the consumer in a git repository of its own, configured with
#                    -B outside it (IDEs, CI): the runs record the repository's
#                    commit in the repository's .culprit/history
# In: MODE, SOURCE_DIR, WORK_DIR, PREFIX, LIBDIR, CTEST, GENERATOR, C_COMPILER,
#     PKG_CONFIG, RUN_TESTS (run the perf tests too, not only list them).
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
set(bin "${WORK_DIR}/consumer-${MODE}")
set(src "${CMAKE_CURRENT_LIST_DIR}/consumer")

if(MODE STREQUAL "pkgconfig")
  file(REMOVE_RECURSE "${bin}")
  file(MAKE_DIRECTORY "${bin}")
  set(ENV{PKG_CONFIG_PATH} "${PREFIX}/${LIBDIR}/pkgconfig")
  # Plain --libs, as Meson and pkg_check_modules ask: -lculprit finds the shared
  # libculprit, whose dependencies come with it (no --static needed).
  run_or_fail(COMMAND "${PKG_CONFIG}" --cflags --libs culprit OUTPUT flags)
  string(STRIP "${flags}" flags)
  separate_arguments(flags UNIX_COMMAND "${flags}")
  if(NOT flags MATCHES "-I${PREFIX}/" OR NOT flags MATCHES "-lculprit")
    message(FATAL_ERROR "pkg-config gives no -I or -lculprit for ${PREFIX}: ${flags}")
  endif()
  run_or_fail(COMMAND "${C_COMPILER}" -std=gnu11 -Wall -Wextra -Werror
                      "${src}/consumer_perf.c" -o "${bin}/consumer_perf" ${flags})
  # libculprit.so is in the prefix, not on the loader's path.
  set(ENV{LD_LIBRARY_PATH} "${PREFIX}/${LIBDIR}")
  run_or_fail(COMMAND "${bin}/consumer_perf" --list OUTPUT out)
  if(NOT out STREQUAL "sum_small\nsum_large\n")
    message(FATAL_ERROR "consumer_perf --list printed:\n${out}")
  endif()
  if(RUN_TESTS)
    run_or_fail(COMMAND "${bin}/consumer_perf" --filter sum_small --history "${bin}/history")
  endif()
  message(STATUS "pkg-config consumer ok")
  return()
endif()

if(MODE STREQUAL "outside")
  # A repository holding the consumer, its perf tests with no HISTORY_DIR (the
  # default: .culprit/history at the repository's root), and a build beside it.
  set(repo "${bin}/repo")
  file(REMOVE_RECURSE "${bin}")
  file(COPY "${src}/" DESTINATION "${repo}")
  file(READ "${repo}/CMakeLists.txt" lists)
  string(REPLACE " HISTORY_DIR history" "" lists "${lists}")
  file(WRITE "${repo}/CMakeLists.txt" "${lists}")
  set(git git -c user.name=culprit -c user.email=culprit@example.invalid)
  run_or_fail(COMMAND ${git} init -q WORKING_DIRECTORY "${repo}")
  run_or_fail(COMMAND ${git} add -A WORKING_DIRECTORY "${repo}")
  run_or_fail(COMMAND ${git} commit -q -m consumer WORKING_DIRECTORY "${repo}")
  run_or_fail(COMMAND ${git} rev-parse HEAD WORKING_DIRECTORY "${repo}" OUTPUT head)
  string(STRIP "${head}" head)
  configure_and_build("${repo}" "${bin}/build" "-DCMAKE_PREFIX_PATH=${PREFIX}")
  unset(ENV{CULPRIT_HISTORY_DIR})
  unset(ENV{CULPRIT_COMMIT})
  run_or_fail(COMMAND "${CTEST}" --output-on-failure -R sum_small
              WORKING_DIRECTORY "${bin}/build")
  file(GLOB history "${repo}/.culprit/history/*.xml")
  file(GLOB stray "${bin}/build/.culprit" "${bin}/build/*/.culprit")
  if(NOT history OR stray)
    message(FATAL_ERROR "no history in ${repo}/.culprit/history, or some in the build "
                        "tree (${stray})")
  endif()
  file(READ "${history}" doc)
  if(NOT doc MATCHES "name=\"culprit.commit\" value=\"${head}\"")
    string(SUBSTRING "${doc}" 0 1500 doc)
    message(FATAL_ERROR "the run did not record commit ${head}:\n${doc}")
  endif()
  message(STATUS "consumer built outside its repository recorded ${head}")
  return()
endif()

if(MODE STREQUAL "examples")
  # The bundled examples, copied out of the tree as a user would, against the prefix.
  # Their perf tests pass no --history: CULPRIT_HISTORY_DIR must reach them.
  set(ENV{CULPRIT_HISTORY_DIR} "${bin}/history")
  foreach(example IN ITEMS fib sort)
    file(REMOVE_RECURSE "${bin}/src/${example}")
    file(COPY "${SOURCE_DIR}/examples/${example}" DESTINATION "${bin}/src")
    configure_and_build("${bin}/src/${example}" "${bin}/${example}"
                        "-DCMAKE_PREFIX_PATH=${PREFIX}")
    ctest_listing(json "${bin}/${example}" -L perf)
    ctest_listing_names(names "${json}")
    list(LENGTH names n)
    if(NOT n EQUAL 4)
      message(FATAL_ERROR "standalone ${example}: ctest lists ${names}")
    endif()
    if(RUN_TESTS)
      run_or_fail(COMMAND "${CTEST}" --output-on-failure -L perf
                  WORKING_DIRECTORY "${bin}/${example}")
    endif()
  endforeach()
  if(RUN_TESTS)
    file(GLOB history "${bin}/history/*.xml")
    list(LENGTH history n)
    if(n LESS 8)
      message(FATAL_ERROR "8 perf tests ran, ${n} history files in ${bin}/history")
    endif()
  endif()
  message(STATUS "standalone examples ok")
  return()
elseif(MODE STREQUAL "installed")
  configure_and_build("${src}" "${bin}" "-DCMAKE_PREFIX_PATH=${PREFIX}")
elseif(MODE STREQUAL "subdir")
  # A Debug build (-O0) of the consumer and of culprit inside it: what is tested is
  # the subproject's wiring, and unoptimized the compiler's CPU time is about a third
  # less (31.8 s user against 47.0 s, at load 17).
  configure_and_build("${src}" "${bin}" "-DCULPRIT_SOURCE_DIR=${SOURCE_DIR}"
                      -DCMAKE_BUILD_TYPE=Debug)
else()
  message(FATAL_ERROR "unknown MODE '${MODE}'")
endif()

if(MODE STREQUAL "subdir")
  # A subproject installs nothing by default (CULPRIT_INSTALL is on at top level only).
  run_or_fail(COMMAND "${CMAKE_COMMAND}" --install "${bin}" --prefix "${bin}/installed")
  file(GLOB_RECURSE installed "${bin}/installed/*")
  if(installed)
    message(FATAL_ERROR "cmake --install of a project using culprit as a subproject "
                        "installed culprit's files: ${installed}")
  endif()
  # Nor does its build make what only an install needs: the shared libculprit, the
  # man pages (docs/cmake.md).
  file(GLOB_RECURSE unneeded "${bin}/culprit/framework/libculprit.so*" "${bin}/culprit/man/*")
  if(unneeded)
    message(FATAL_ERROR "building a project using culprit as a subproject built what "
                        "only an install needs: ${unneeded}")
  endif()
endif()

# culprit::culprit_cli runs, installed or built as a subproject.
run_or_fail(COMMAND "${CTEST}" --output-on-failure -R consumer_culprit_command
            WORKING_DIRECTORY "${bin}")
ctest_listing(json "${bin}")
ctest_listing_names(names "${json}")
list(REMOVE_ITEM names consumer_culprit_command)
if(NOT names STREQUAL "consumer_perf.sum_small;consumer_perf.sum_large")
  message(FATAL_ERROR "ctest lists: ${names}")
endif()
foreach(t IN ITEMS sum_small sum_large)
  expect_perf_test("${json}" consumer_perf.${t} ${t} LABELS consumer HISTORY "${bin}/history")
endforeach()

if(RUN_TESTS)
  run_or_fail(COMMAND "${CTEST}" --output-on-failure -L perf WORKING_DIRECTORY "${bin}")
  file(GLOB history "${bin}/history/*")
  if(NOT history)
    message(FATAL_ERROR "the perf tests ran but wrote no history into ${bin}/history")
  endif()
endif()
message(STATUS "${MODE} consumer ok: ${names}")
