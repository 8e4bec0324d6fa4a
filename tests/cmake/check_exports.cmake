# The dynamic symbol table of a shared libculprit holds no internal function: no
# culprit_<module>__<name> (cmake/culpritExportMap.cmake hides them), and its
# public API is there (a sample of functions a test author or the tool calls).
#   cmake -DNM=nm -DLIBRARY=libculprit.so -P check_exports.cmake
execute_process(COMMAND ${NM} -D --defined-only ${LIBRARY}
                OUTPUT_VARIABLE symbols RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${NM} -D ${LIBRARY} failed (${status})")
endif()
string(REGEX MATCHALL "[^\n ]*culprit_[A-Za-z0-9_]*__[A-Za-z0-9_]*" internal "${symbols}")
if(internal)
  list(JOIN internal "\n  " listed)
  message(FATAL_ERROR "internal symbols exported by ${LIBRARY}:\n  ${listed}")
endif()
foreach(public culprit_error_last culprit_run_perf_tests culprit_detect_check
               culprit_history_load culprit_vcs_open)
  if(NOT symbols MATCHES "[ \n]${public}(@|\n)")
    message(FATAL_ERROR "${public} is not exported by ${LIBRARY}")
  endif()
endforeach()
message(STATUS "${LIBRARY}: no internal symbol exported")
