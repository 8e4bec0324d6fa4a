# framework/history: the result model, its JUnit XML form, the store on disk.
target_sources(culprit PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/run.c
  ${CMAKE_CURRENT_LIST_DIR}/number.c
  ${CMAKE_CURRENT_LIST_DIR}/block.c
  ${CMAKE_CURRENT_LIST_DIR}/pack.c
  ${CMAKE_CURRENT_LIST_DIR}/write.c
  ${CMAKE_CURRENT_LIST_DIR}/junit.c
  ${CMAKE_CURRENT_LIST_DIR}/skip.c
  ${CMAKE_CURRENT_LIST_DIR}/read.c
  ${CMAKE_CURRENT_LIST_DIR}/mapped.c
  ${CMAKE_CURRENT_LIST_DIR}/report.c
  ${CMAKE_CURRENT_LIST_DIR}/store.c
  ${CMAKE_CURRENT_LIST_DIR}/source.c
  ${CMAKE_CURRENT_LIST_DIR}/compact.c)
