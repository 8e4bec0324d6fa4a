# culprit.cmake: the CMake API of culprit for projects that write perf tests.
#
#   culprit_instrument(<target>)         (call trees: see below and docs/cmake.md)
#
#   culprit_discover_tests(<target>
#                          [HISTORY_DIR dir]
#                          [TIMEOUT seconds]            (default 300)
#                          [DISCOVERY_TIMEOUT seconds]  (default 30)
#                          [LABELS label...]
#                          [PROPERTIES name value...]
#                          [TEST_PREFIX prefix]         (default "<target>.")
#                          [WORKING_DIRECTORY dir]      (default the current binary dir)
#                          [REPOSITORY dir]             (default the current source dir)
#                          [EXTRA_ARGS arg...]
#                          [NO_BUILD_FLAGS])
#
# Registers every perf test of a culprit test binary as its own ctest test, found by
# asking the binary itself (`<bin> --list`) when ctest runs, the way CMake's
# gtest_discover_tests() does in its PRE_TEST mode. See docs/cmake.md.
#
# This file is included by the top-level CMakeLists.txt of culprit (in-tree use,
# add_subdirectory or FetchContent) and by culpritConfig.cmake (installed use); the
# discovery script culpritDiscoverTests.cmake sits next to it in both cases.
include_guard(GLOBAL)

# CMAKE_CURRENT_FUNCTION_LIST_DIR needs 3.17; the rest of this file needs nothing newer.
if(CMAKE_VERSION VERSION_LESS 3.17)
  message(FATAL_ERROR "culprit_discover_tests() needs CMake 3.17 or newer")
endif()

# Writes the compile flags of the build into CULPRIT_BUILD_FLAGS, a string literal that
# culprit.h records in every history file (perf results are only comparable under the
# same flags). The flags are CMAKE_C_FLAGS, the flags of the build type and the
# target's own compile options.
function(_culprit_add_build_flags target)
  get_target_property(defs ${target} COMPILE_DEFINITIONS)
  if(defs AND defs MATCHES "(^|;)CULPRIT_BUILD_FLAGS(=|;|$)")
    return() # the user recorded flags of their own
  endif()

  get_property(multi_config GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
  if(multi_config)
    set(configs ${CMAKE_CONFIGURATION_TYPES})
  else()
    set(configs "${CMAKE_BUILD_TYPE}")
    if(NOT configs)
      set(configs "none") # no build type: CMAKE_C_FLAGS alone
    endif()
  endif()
  set(options "$<TARGET_PROPERTY:${target},COMPILE_OPTIONS>")
  set(value "")
  foreach(config IN LISTS configs)
    string(TOUPPER "${config}" config_upper)
    set(flags "${CMAKE_C_FLAGS} ${CMAKE_C_FLAGS_${config_upper}}")
    string(REGEX REPLACE "[ \t\n]+" " " flags "${flags}")
    string(STRIP "${flags}" flags)
    # The value becomes a C string literal: escape what C would interpret, then what
    # a generator expression would.
    string(REPLACE "\\" "\\\\" flags "${flags}")
    string(REPLACE "\"" "\\\"" flags "${flags}")
    string(REPLACE ">" "$<ANGLE-R>" flags "${flags}")
    string(REPLACE "," "$<COMMA>" flags "${flags}")
    string(REPLACE ";" "$<SEMICOLON>" flags "${flags}")
    set(sep "")
    if(NOT flags STREQUAL "")
      set(sep " ")
    endif()
    # The target's own options follow, when it has any.
    string(APPEND flags "$<$<NOT:$<STREQUAL:${options},>>:${sep}$<JOIN:${options}, >>")
    if(multi_config)
      string(APPEND value "$<$<CONFIG:${config}>:${flags}>")
    else()
      set(value "${flags}")
    endif()
  endforeach()
  target_compile_definitions(${target} PRIVATE "CULPRIT_BUILD_FLAGS=\"${value}\"")
endfunction()

# A bracket argument [=*[...]=*] that holds `value` verbatim, whatever it contains.
function(_culprit_bracket out value)
  set(eq "=")
  while("${value}" MATCHES "\\]${eq}\\]")
    string(APPEND eq "=")
  endwhile()
  set(${out} "[${eq}[${value}]${eq}]" PARENT_SCOPE)
endfunction()

function(culprit_discover_tests target)
  cmake_parse_arguments(PARSE_ARGV 1 arg
    "NO_BUILD_FLAGS"
    "HISTORY_DIR;TIMEOUT;DISCOVERY_TIMEOUT;TEST_PREFIX;WORKING_DIRECTORY;REPOSITORY"
    "LABELS;PROPERTIES;EXTRA_ARGS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "culprit_discover_tests: unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "culprit_discover_tests: '${target}' is not a target")
  endif()
  get_target_property(type ${target} TYPE)
  if(NOT type STREQUAL "EXECUTABLE")
    message(FATAL_ERROR "culprit_discover_tests: '${target}' is not an executable (${type})")
  endif()

  if(NOT DEFINED arg_TIMEOUT)
    set(arg_TIMEOUT 300)
  endif()
  if(NOT DEFINED arg_DISCOVERY_TIMEOUT)
    set(arg_DISCOVERY_TIMEOUT 30)
  endif()
  if(NOT DEFINED arg_TEST_PREFIX)
    set(arg_TEST_PREFIX "${target}.")
  endif()
  if(NOT arg_WORKING_DIRECTORY)
    set(arg_WORKING_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}")
  endif()
  # The test runs in the build tree, which may lie outside the repository (cmake -B
  # ../build, IDEs, CI): the source directory tells the runner which repository's
  # commit to record and where its history is (--repository).
  if(NOT arg_REPOSITORY)
    set(arg_REPOSITORY "${CMAKE_CURRENT_SOURCE_DIR}")
  endif()
  get_filename_component(arg_REPOSITORY "${arg_REPOSITORY}" ABSOLUTE
                         BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  foreach(n IN ITEMS TIMEOUT DISCOVERY_TIMEOUT)
    if(NOT arg_${n} MATCHES "^[0-9]+(\\.[0-9]*)?$")
      message(FATAL_ERROR "culprit_discover_tests: ${n} must be a number of seconds, "
                          "got '${arg_${n}}'")
    endif()
  endforeach()
  if(arg_HISTORY_DIR)
    # Relative to the current binary dir, so the test command does not depend on its
    # working directory.
    get_filename_component(arg_HISTORY_DIR "${arg_HISTORY_DIR}" ABSOLUTE
                           BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  endif()

  if(NOT arg_NO_BUILD_FLAGS)
    _culprit_add_build_flags(${target})
  endif()

  # One set of files per call, so a target may be registered more than once.
  get_property(counter TARGET ${target} PROPERTY CULPRIT_DISCOVER_COUNTER)
  if(NOT counter)
    set(counter 0)
  endif()
  math(EXPR counter "${counter} + 1")
  set_property(TARGET ${target} PROPERTY CULPRIT_DISCOVER_COUNTER ${counter})

  set(base "${CMAKE_CURRENT_BINARY_DIR}/${target}[${counter}]")
  set(include_file "${base}_include.cmake")
  get_property(multi_config GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
  if(multi_config)
    set(tests_file "${base}_tests-$<CONFIG>.cmake")
  else()
    set(tests_file "${base}_tests.cmake")
  endif()
  get_property(emulator TARGET ${target} PROPERTY CROSSCOMPILING_EMULATOR)
  set(script "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/culpritDiscoverTests.cmake")

  # Every value goes through a bracket argument, so lists (LABELS, PROPERTIES with
  # escaped semicolons) and paths with spaces reach the script unchanged.
  set(args "")
  foreach(pair IN ITEMS
      "TEST_TARGET;${target}"
      "TEST_EXECUTABLE;$<TARGET_FILE:${target}>"
      "TEST_EXECUTOR;${emulator}"
      "TEST_WORKING_DIR;${arg_WORKING_DIRECTORY}"
      "TEST_HISTORY_DIR;${arg_HISTORY_DIR}"
      "TEST_REPOSITORY;${arg_REPOSITORY}"
      "TEST_PREFIX;${arg_TEST_PREFIX}"
      "TEST_TIMEOUT;${arg_TIMEOUT}"
      "TEST_DISCOVERY_TIMEOUT;${arg_DISCOVERY_TIMEOUT}"
      "CTEST_FILE;${tests_file}")
    list(POP_FRONT pair name)
    _culprit_bracket(value "${pair}")
    string(APPEND args "    set(${name} ${value})\n")
  endforeach()
  foreach(name IN ITEMS LABELS PROPERTIES EXTRA_ARGS)
    _culprit_bracket(value "${arg_${name}}")
    string(APPEND args "    set(TEST_${name} ${value})\n")
  endforeach()
  # The placeholder of an unbuilt binary carries the perf tests' labels, so that
  # `ctest -L perf` in a tree configured but not built fails instead of finding no
  # test and passing (a CI job that forgot to build).
  set(not_built_labels perf ${arg_LABELS})
  list(REMOVE_DUPLICATES not_built_labels)
  _culprit_bracket(not_built_labels_q "${not_built_labels}")
  _culprit_bracket(script_q "${script}")
  _culprit_bracket(tests_q "${tests_file}")

  # Runs at ctest time (also for ctest -N): rediscovers when the binary, this file or
  # the discovery script is newer than the list it wrote last time.
  string(CONCAT content
    "# Generated by culprit_discover_tests(${target}); do not edit.\n"
    "if(EXISTS \"$<TARGET_FILE:${target}>\")\n"
    "  if(NOT EXISTS ${tests_q}\n"
    "     OR NOT ${tests_q} IS_NEWER_THAN \"$<TARGET_FILE:${target}>\"\n"
    "     OR NOT ${tests_q} IS_NEWER_THAN \"\${CMAKE_CURRENT_LIST_FILE}\"\n"
    "     OR NOT ${tests_q} IS_NEWER_THAN ${script_q})\n"
    "${args}"
    "    include(${script_q})\n"
    "    culprit_discover_tests_impl()\n"
    "  endif()\n"
    "  include(${tests_q})\n"
    "else()\n"
    "  add_test(${target}_NOT_BUILT ${target}_NOT_BUILT)\n"
    "  set_tests_properties(${target}_NOT_BUILT PROPERTIES LABELS ${not_built_labels_q})\n"
    "endif()\n")

  if(multi_config)
    foreach(config IN LISTS CMAKE_CONFIGURATION_TYPES)
      file(GENERATE OUTPUT "${base}_include-${config}.cmake" CONTENT "${content}"
           CONDITION $<CONFIG:${config}>)
    endforeach()
    file(WRITE "${include_file}"
         "include(\"${base}_include-\${CTEST_CONFIGURATION_TYPE}.cmake\")\n")
  else()
    file(GENERATE OUTPUT "${base}_include-impl.cmake" CONTENT "${content}")
    file(WRITE "${include_file}" "include(\"${base}_include-impl.cmake\")\n")
  endif()
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${include_file}")
endfunction()

# culprit_instrument(<target>)
#
# Builds <target> with -finstrument-functions (plus -g, so that call trees name
# files and lines: debug information does not change the generated code) and links
# the trace runtime culprit::culprit_trace, which records the call tree
# (docs/calltree.md). What must stay uninstrumented stays so: the runtime is its own
# library built without the flag, libculprit is linked as it was built, and the
# inline functions of culprit's and CMocka's headers are excluded
# (-finstrument-functions-exclude-file-list), so a perf test's tree holds the
# code under test, not the harness.
#
# Executables and static libraries link the runtime; a shared library gets only the
# flags and passes the runtime on to whoever links it (INTERFACE), so a process has
# one runtime, in its executable, and the library's hooks bind to it. A MODULE
# loaded with dlopen() needs its host built with ENABLE_EXPORTS (or instrumented
# with culprit_instrument) for the same reason. See docs/cmake.md.
function(culprit_instrument target)
  if(NOT TARGET ${target})
    message(FATAL_ERROR "culprit_instrument: '${target}' is not a target")
  endif()
  if(NOT TARGET culprit::culprit_trace)
    message(FATAL_ERROR "culprit_instrument: the trace runtime culprit::culprit_trace is "
                        "missing (find_package(culprit) or add_subdirectory(culprit) first)")
  endif()
  get_target_property(type ${target} TYPE)
  # The exclusion list is GCC's; clang has no such option (and culprit's headers
  # define no functions, CMocka's one unused dummy).
  target_compile_options(${target} PRIVATE -finstrument-functions -g
    "$<$<C_COMPILER_ID:GNU>:-finstrument-functions-exclude-file-list=include/culprit/,cmocka.h,cmocka_private.h>")
  if(type STREQUAL "SHARED_LIBRARY" OR type STREQUAL "MODULE_LIBRARY")
    # glibc defines do-nothing hooks: without --undefined, an executable that is not
    # instrumented itself would not pull the runtime out of its archive, and the
    # library's hooks would bind to glibc's. Pulled in, the executable defines them
    # and exports them, since the library references them.
    target_link_libraries(${target} INTERFACE culprit::culprit_trace)
    target_link_options(${target} INTERFACE
      "LINKER:--undefined=__cyg_profile_func_enter,--undefined=__cyg_profile_func_exit")
  elseif(type STREQUAL "EXECUTABLE" OR type STREQUAL "STATIC_LIBRARY"
         OR type STREQUAL "OBJECT_LIBRARY")
    target_link_libraries(${target} PRIVATE culprit::culprit_trace)
  else()
    message(FATAL_ERROR "culprit_instrument: '${target}' is a ${type}; an executable or a "
                        "library is needed")
  endif()
endfunction()
