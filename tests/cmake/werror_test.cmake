# werror_test.cmake: -Werror is on for culprit's own code where culprit is the
# top-level project, off where another project includes it (add_subdirectory, as
# FetchContent does), and on again there with -DCULPRIT_WERROR=ON. Configures only
# (no build) and reads the compile commands of culprit's library sources: seconds.
# In: SOURCE_DIR, WORK_DIR, GENERATOR, C_COMPILER.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
set(dir "${WORK_DIR}/werror")
# compile_commands.json comes from the Makefile and Ninja generators only.
if(NOT GENERATOR MATCHES "^(Unix Makefiles|Ninja)$")
  set(GENERATOR "Unix Makefiles")
endif()
file(REMOVE_RECURSE "${dir}")

# Configures `src` into `bin` and sets `out_var` to TRUE when every compile command
# of a file under culprit's framework/ has -Werror, FALSE when none has; fails when
# there is no such command or the commands disagree.
function(werror_of out_var src bin)
  run_or_fail(COMMAND "${CMAKE_COMMAND}" -S "${src}" -B "${bin}" -G "${GENERATOR}"
                      "-DCMAKE_C_COMPILER=${C_COMPILER}" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
                      -DCULPRIT_TEST_SANITIZERS=OFF ${ARGN})
  file(READ "${bin}/compile_commands.json" json)
  string(JSON n LENGTH "${json}")
  math(EXPR last "${n} - 1")
  set(with 0)
  set(without 0)
  foreach(i RANGE ${last})
    string(JSON file GET "${json}" ${i} file)
    string(FIND "${file}" "${SOURCE_DIR}/framework/" at)
    if(NOT at EQUAL 0)
      continue()
    endif()
    string(JSON command GET "${json}" ${i} command)
    if(command MATCHES "(^| )-Werror( |$)")
      math(EXPR with "${with} + 1")
    else()
      math(EXPR without "${without} + 1")
    endif()
  endforeach()
  if(with EQUAL 0 AND without EQUAL 0)
    message(FATAL_ERROR "${bin}: no compile command for culprit's framework/ sources")
  elseif(with GREATER 0 AND without GREATER 0)
    message(FATAL_ERROR "${bin}: ${with} of culprit's sources compile with -Werror, "
                        "${without} without")
  endif()
  if(with GREATER 0)
    set(${out_var} TRUE PARENT_SCOPE)
  else()
    set(${out_var} FALSE PARENT_SCOPE)
  endif()
endfunction()

set(consumer "${CMAKE_CURRENT_LIST_DIR}/consumer")
# culprit's own tests and examples left out: -Werror is decided for the whole project
# (the top-level CMakeLists.txt), and only the framework's commands are read.
werror_of(top "${SOURCE_DIR}" "${dir}/top" -DCULPRIT_BUILD_EXAMPLES=OFF -DCULPRIT_BUILD_TESTS=OFF)
werror_of(sub "${consumer}" "${dir}/subdir" "-DCULPRIT_SOURCE_DIR=${SOURCE_DIR}")
werror_of(sub_on "${consumer}" "${dir}/subdir-on" "-DCULPRIT_SOURCE_DIR=${SOURCE_DIR}"
          -DCULPRIT_WERROR=ON)
if(NOT top)
  message(FATAL_ERROR "culprit as the top-level project compiles without -Werror")
endif()
if(sub)
  message(FATAL_ERROR "culprit inside another project (add_subdirectory) compiles "
                      "with -Werror: a new compiler warning would break that project")
endif()
if(NOT sub_on)
  message(FATAL_ERROR "-DCULPRIT_WERROR=ON in a project including culprit did not "
                      "turn -Werror on")
endif()
message(STATUS "-Werror: on at top level, off in a consumer, on there with CULPRIT_WERROR=ON")
