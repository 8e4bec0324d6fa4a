# sources of framework/stats
target_sources(culprit PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/welford.c
  ${CMAKE_CURRENT_LIST_DIR}/describe.c)
