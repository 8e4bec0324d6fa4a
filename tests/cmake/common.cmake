# common.cmake: helpers of the CMake integration tests (cmake -P scripts).
cmake_minimum_required(VERSION 3.19) # string(JSON)

# Runs a command, fails the test with its output when it exits non-zero.
function(run_or_fail)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "WORKING_DIRECTORY;OUTPUT" "COMMAND")
  if(NOT arg_WORKING_DIRECTORY)
    set(arg_WORKING_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}")
  endif()
  execute_process(COMMAND ${arg_COMMAND}
                  WORKING_DIRECTORY "${arg_WORKING_DIRECTORY}"
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    string(JOIN " " cmd ${arg_COMMAND})
    message(FATAL_ERROR "FAILED (${rc}): ${cmd}\n  in ${arg_WORKING_DIRECTORY}\n"
                        "--- stdout\n${out}\n--- stderr\n${err}")
  endif()
  if(arg_OUTPUT)
    set(${arg_OUTPUT} "${out}" PARENT_SCOPE)
  endif()
endfunction()

# Reads `ctest --show-only=json-v1` in `dir` (no test runs) into `out_var`.
function(ctest_listing out_var dir)
  run_or_fail(COMMAND "${CTEST}" --show-only=json-v1 ${ARGN}
              WORKING_DIRECTORY "${dir}" OUTPUT json)
  set(${out_var} "${json}" PARENT_SCOPE)
endfunction()

# The JSON array at path `...` of `json` as a CMake list (empty when absent or empty).
function(json_array out_var json)
  set(items "")
  string(JSON n ERROR_VARIABLE missing LENGTH "${json}" ${ARGN})
  if(NOT missing AND n GREATER 0)
    math(EXPR last "${n} - 1")
    foreach(i RANGE ${last})
      string(JSON item GET "${json}" ${ARGN} ${i})
      list(APPEND items "${item}")
    endforeach()
  endif()
  set(${out_var} "${items}" PARENT_SCOPE)
endfunction()

# Fails unless `command` (a list) has `option` followed by `expected`.
function(expect_option test command option expected)
  list(FIND command "${option}" at)
  if(at LESS 0)
    message(FATAL_ERROR "'${test}': no ${option} in its command: ${command}")
  endif()
  math(EXPR at "${at} + 1")
  list(GET command ${at} value)
  if(NOT value STREQUAL expected)
    message(FATAL_ERROR "'${test}': ${option} '${value}', expected '${expected}'")
  endif()
endfunction()

# The names of the tests in a json-v1 listing.
function(ctest_listing_names out_var json)
  set(names "")
  string(JSON n LENGTH "${json}" tests)
  if(n GREATER 0)
    math(EXPR last "${n} - 1")
    foreach(i RANGE ${last})
      string(JSON name GET "${json}" tests ${i} name)
      list(APPEND names "${name}")
    endforeach()
  endif()
  set(${out_var} "${names}" PARENT_SCOPE)
endfunction()

# Checks that the listing has ctest test `name`, registered the way
# culprit_discover_tests() promises: command `<bin> --filter <perf test> ...`,
# labels `perf` plus `labels`, RUN_SERIAL. Optional: TIMEOUT t, HISTORY dir.
function(expect_perf_test json name perf_test)
  cmake_parse_arguments(PARSE_ARGV 3 arg "" "TIMEOUT;HISTORY" "LABELS")
  ctest_listing_names(names "${json}")
  list(FIND names "${name}" index)
  if(index LESS 0)
    message(FATAL_ERROR "ctest does not list '${name}'; it lists: ${names}")
  endif()

  json_array(command "${json}" tests ${index} command)
  expect_option("${name}" "${command}" --filter "${perf_test}")
  if(arg_HISTORY)
    expect_option("${name}" "${command}" --history "${arg_HISTORY}")
  endif()

  set(labels "")
  set(serial FALSE)
  set(timeout "")
  string(JSON nprops LENGTH "${json}" tests ${index} properties)
  math(EXPR last "${nprops} - 1")
  foreach(i RANGE ${last})
    string(JSON prop GET "${json}" tests ${index} properties ${i} name)
    if(prop STREQUAL "LABELS")
      json_array(labels "${json}" tests ${index} properties ${i} value)
    elseif(prop STREQUAL "RUN_SERIAL")
      string(JSON serial GET "${json}" tests ${index} properties ${i} value)
    elseif(prop STREQUAL "TIMEOUT")
      string(JSON timeout GET "${json}" tests ${index} properties ${i} value)
    endif()
  endforeach()
  foreach(l IN ITEMS perf ${arg_LABELS})
    if(NOT l IN_LIST labels)
      message(FATAL_ERROR "'${name}': label '${l}' missing (labels: ${labels})")
    endif()
  endforeach()
  if(NOT serial)
    message(FATAL_ERROR "'${name}': not RUN_SERIAL")
  endif()
  if(arg_TIMEOUT AND NOT timeout EQUAL arg_TIMEOUT)
    message(FATAL_ERROR "'${name}': TIMEOUT ${timeout}, expected ${arg_TIMEOUT}")
  endif()
endfunction()

# Configures and builds a CMake project; extra arguments go to the configure step.
function(configure_and_build src bin)
  file(REMOVE_RECURSE "${bin}")
  run_or_fail(COMMAND "${CMAKE_COMMAND}" -S "${src}" -B "${bin}" -G "${GENERATOR}"
                      "-DCMAKE_C_COMPILER=${C_COMPILER}" -DCMAKE_BUILD_TYPE=RelWithDebInfo
                      ${ARGN})
  run_or_fail(COMMAND "${CMAKE_COMMAND}" --build "${bin}" --parallel 2)
endfunction()
