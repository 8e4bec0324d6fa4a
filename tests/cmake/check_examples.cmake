# check_examples.cmake: the example perf tests are registered with ctest, one ctest
# test per perf test, with the perf label. Uses ctest --show-only (like ctest -N:
# lists, runs nothing), so it is safe to run from inside ctest.
# In: EXAMPLES_DIR (the examples' build directory), CTEST.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
ctest_listing(json "${EXAMPLES_DIR}" -L perf)
foreach(t IN ITEMS fib_config fib_adaptive fib_region fib_table)
  expect_perf_test("${json}" fib_perf.${t} ${t} LABELS example TIMEOUT 120)
endforeach()
foreach(t IN ITEMS sort_insertion_2000 sort_merge_2000 sort_qsort_2000 sort_ints_5000)
  expect_perf_test("${json}" sort_perf.${t} ${t} LABELS example TIMEOUT 120)
endforeach()
expect_perf_test("${json}" journal_perf.journal_load journal_load LABELS example TIMEOUT 120)
ctest_listing_names(names "${json}")
list(LENGTH names n)
if(NOT n EQUAL 9)
  message(FATAL_ERROR "expected 9 example perf tests, ctest lists ${n}: ${names}")
endif()
message(STATUS "examples ok: ${names}")

# The plain `ctest -N` a user types shows them too.
run_or_fail(COMMAND "${CTEST}" -N -L perf WORKING_DIRECTORY "${EXAMPLES_DIR}" OUTPUT out)
foreach(t IN ITEMS fib_perf.fib_config sort_perf.sort_ints_5000)
  if(NOT out MATCHES "Test +#[0-9]+: ${t}\n")
    message(FATAL_ERROR "ctest -N -L perf does not show ${t}:\n${out}")
  endif()
endforeach()
