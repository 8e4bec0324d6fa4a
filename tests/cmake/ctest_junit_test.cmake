# ctest_junit_test.cmake: three perf tests of the sort example run through ctest, as
# CI runs them, with CULPRIT_JUNIT naming a directory: one report per run there,
# merged by `culprit junit` into one JUnit file with three testcases, valid against
# the strict schema (junit-10.xsd) and read by a dashboard's parser (python3's
# junitparser, as Jenkins and GitLab importers read it). And ctest itself: the value,
# interval and category in its plain output (no -V), and the CTest measurements in
# the Test.xml that `ctest -T Test` writes for CDash.
# In: EXAMPLES_DIR (the examples' build), CULPRIT (the command), SCHEMA, WORK_DIR,
#     CTEST, PYTHON (a python3 that has junitparser, or empty: that step skipped).
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
set(dir "${WORK_DIR}/ctest-junit")
file(REMOVE_RECURSE "${dir}")
file(MAKE_DIRECTORY "${dir}")
set(ENV{CULPRIT_JUNIT} "${dir}/junit/")
set(ENV{CULPRIT_HISTORY_DIR} "${dir}/history")
set(ENV{CULPRIT_FAIL_ON} none) # a loaded machine may move a test out of its category
set(tests "sort_perf\\.sort_(insertion|merge|qsort)_2000")
run_or_fail(COMMAND "${CTEST}" -T Test -R "${tests}" WORKING_DIRECTORY "${EXAMPLES_DIR}"
            OUTPUT out)

# Plain ctest output: one line per test with its value, interval and category.
foreach(t IN ITEMS insertion merge qsort)
  if(NOT out MATCHES "sort_perf\\.sort_${t}_2000: [0-9.]+ [mun]?s \\+-[0-9.]+% \\([a-z]+\\)")
    message(FATAL_ERROR "ctest's output has no value of sort_${t}_2000:\n${out}")
  endif()
endforeach()

# CDash: ctest -T Test copied the measurements into Test.xml.
file(GLOB test_xml "${EXAMPLES_DIR}/Testing/*/Test.xml")
list(SORT test_xml)
list(POP_BACK test_xml newest)
file(READ "${newest}" xml)
string(REGEX MATCHALL "<NamedMeasurement type=\"numeric/double\" name=\"wall_ns.mean\">"
       means "${xml}")
list(LENGTH means n)
if(NOT n EQUAL 3 OR NOT xml MATCHES "name=\"category\"")
  message(FATAL_ERROR "Test.xml (${newest}) has ${n} wall_ns.mean measurements, not 3, "
                      "or no category")
endif()

# One JUnit file for the whole ctest run.
file(GLOB reports "${dir}/junit/*.xml")
list(LENGTH reports n)
if(NOT n EQUAL 3)
  message(FATAL_ERROR "3 perf tests ran, ${n} reports in ${dir}/junit")
endif()
run_or_fail(COMMAND "${CULPRIT}" junit "${dir}/junit" --output "${dir}/report.xml")
run_or_fail(COMMAND xmllint --noout --schema "${SCHEMA}" "${dir}/report.xml")

# A relative CULPRIT_JUNIT is where ctest was started ($PWD, as a shell sets it), not
# the test's working directory in the build tree: `CULPRIT_JUNIT=junit/ ctest
# --test-dir build` then `culprit junit junit/` (README.md, issue 27).
set(ENV{CULPRIT_JUNIT} "junit-relative/")
set(ENV{PWD} "${dir}")
run_or_fail(COMMAND "${CTEST}" --test-dir "${EXAMPLES_DIR}" -R "sort_perf\\.sort_merge_2000"
            WORKING_DIRECTORY "${dir}")
file(GLOB relative "${dir}/junit-relative/*.xml")
file(GLOB_RECURSE misplaced "${EXAMPLES_DIR}/*/junit-relative/*.xml")
if(NOT relative OR misplaced)
  foreach(f IN LISTS misplaced) # no stray directory left in the build tree
    get_filename_component(d "${f}" DIRECTORY)
    file(REMOVE_RECURSE "${d}")
  endforeach()
  message(FATAL_ERROR "CULPRIT_JUNIT=junit-relative/ from ${dir}: reports there: "
                      "'${relative}', in the build tree: '${misplaced}'")
endif()
run_or_fail(COMMAND "${CULPRIT}" junit junit-relative/ --output relative.xml
            WORKING_DIRECTORY "${dir}")
if(NOT PYTHON)
  message(STATUS "python3-junitparser not installed: the dashboard parser step skipped")
  return()
endif()
file(WRITE "${dir}/read.py" [=[
import sys
from junitparser import JUnitXml
cases = [c for suite in JUnitXml.fromfile(sys.argv[1]) for c in suite]
assert len(cases) == 3, f"{len(cases)} testcases"
for c in cases:
    first = c.system_out.splitlines()[0]
    # time is the mean of one repetition: the sort tests take microseconds to
    # milliseconds, far below the seconds sampling runs.
    assert 0 < c.time < 1, f"{c.name}: time {c.time}"
    assert first.startswith("[  PERF  ] " + c.name), f"{c.name}: system-out starts {first!r}"
    print(c.classname, c.name, c.time, first)
]=])
run_or_fail(COMMAND "${PYTHON}" "${dir}/read.py" "${dir}/report.xml" OUTPUT parsed)
message(STATUS "one JUnit report of three ctest runs:\n${parsed}")
