# discovery_test.cmake: tests culprit_discover_tests() against a fake test binary
# (discovery/fake_perf.c), independent of the runner:
#   - every perf test becomes a ctest test with the promised command and properties;
#   - the tests run and get their command line and environment;
#   - a crashing or chatty `--list` makes ctest fail loudly, with the output;
#   - discovery recovers once the binary behaves again.
# In: SOURCE_DIR (culprit), WORK_DIR, CTEST, GENERATOR, C_COMPILER.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
set(bin "${WORK_DIR}/discovery")
configure_and_build("${CMAKE_CURRENT_LIST_DIR}/discovery" "${bin}"
                    "-DCULPRIT_CMAKE_DIR=${SOURCE_DIR}/cmake")

ctest_listing(json "${bin}")
ctest_listing_names(names "${json}")
set(expected fake_perf.alpha fake_perf.beta_2 fake_perf.gamma_long_name_3
             custom::alpha custom::beta_2 custom::gamma_long_name_3)
if(NOT names STREQUAL expected)
  message(FATAL_ERROR "discovered: ${names}\nexpected: ${expected}")
endif()
foreach(t IN ITEMS alpha beta_2 gamma_long_name_3)
  expect_perf_test("${json}" fake_perf.${t} ${t} LABELS extra more TIMEOUT 7
                   HISTORY "${bin}/history dir")
  expect_perf_test("${json}" custom::${t} ${t} TIMEOUT 300)
endforeach()

# ctest -L perf selects them all, ctest -L extra only the first registration.
run_or_fail(COMMAND "${CTEST}" -N -L extra WORKING_DIRECTORY "${bin}" OUTPUT out)
if(NOT out MATCHES "Total Tests: 3")
  message(FATAL_ERROR "ctest -N -L extra:\n${out}")
endif()

# The tests run: --filter, --history and the environment reach the binary.
run_or_fail(COMMAND "${CTEST}" --output-on-failure -V WORKING_DIRECTORY "${bin}" OUTPUT out)
if(NOT out MATCHES "ran alpha history=${bin}/history dir")
  message(FATAL_ERROR "fake_perf.alpha did not get its --history:\n${out}")
endif()

# A crashing --list fails ctest loudly, with the binary's stderr in the message.
foreach(case IN ITEMS "crash;boom" "garbage;Running 3 tests")
  list(GET case 0 mode)
  list(GET case 1 needle)
  file(TOUCH "${bin}/fake_perf") # newer than the list: rediscover
  set(ENV{FAKE_PERF_MODE} ${mode})
  execute_process(COMMAND "${CTEST}" -N WORKING_DIRECTORY "${bin}"
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  unset(ENV{FAKE_PERF_MODE})
  if(rc EQUAL 0 OR NOT "${out}${err}" MATCHES "${needle}")
    message(FATAL_ERROR "a ${mode} --list did not fail ctest -N loudly (rc ${rc}):\n"
                        "${out}\n${err}")
  endif()
endforeach()

# Once the binary behaves again, discovery recovers without reconfiguring.
ctest_listing(json "${bin}")
ctest_listing_names(names "${json}")
if(NOT names STREQUAL expected)
  message(FATAL_ERROR "after recovery, discovered: ${names}")
endif()
message(STATUS "discovery ok: ${names}")

# Configured but not built: `ctest -L perf` must fail, not find no test and pass (a
# CI job that forgot to build). The placeholder carries the perf tests' labels.
set(unbuilt "${WORK_DIR}/discovery-unbuilt")
file(REMOVE_RECURSE "${unbuilt}")
run_or_fail(COMMAND "${CMAKE_COMMAND}" -S "${CMAKE_CURRENT_LIST_DIR}/discovery" -B "${unbuilt}"
                    -G "${GENERATOR}" "-DCMAKE_C_COMPILER=${C_COMPILER}"
                    "-DCULPRIT_CMAKE_DIR=${SOURCE_DIR}/cmake")
foreach(label IN ITEMS perf extra)
  execute_process(COMMAND "${CTEST}" -L ${label} WORKING_DIRECTORY "${unbuilt}"
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(rc EQUAL 0 OR NOT out MATCHES "fake_perf_NOT_BUILT")
    message(FATAL_ERROR "ctest -L ${label} in an unbuilt tree exited ${rc}:\n${out}\n${err}")
  endif()
endforeach()
message(STATUS "unbuilt tree: ctest -L perf fails with fake_perf_NOT_BUILT")
