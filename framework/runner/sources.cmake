target_sources(culprit PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/cmdline.c
  ${CMAKE_CURRENT_LIST_DIR}/execute.c
  ${CMAKE_CURRENT_LIST_DIR}/valgrind.c
  ${CMAKE_CURRENT_LIST_DIR}/debugger.c
  ${CMAKE_CURRENT_LIST_DIR}/ctest.c
  ${CMAKE_CURRENT_LIST_DIR}/job.c
  ${CMAKE_CURRENT_LIST_DIR}/names.c
  ${CMAKE_CURRENT_LIST_DIR}/own_history.c
  ${CMAKE_CURRENT_LIST_DIR}/runner.c
  ${CMAKE_CURRENT_LIST_DIR}/result_json.c
  ${CMAKE_CURRENT_LIST_DIR}/rerun.c
  ${CMAKE_CURRENT_LIST_DIR}/settings.c)
