# sources of framework/measure
target_sources(culprit PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/clock.c
  ${CMAKE_CURRENT_LIST_DIR}/counters.c
  ${CMAKE_CURRENT_LIST_DIR}/loop.c
  ${CMAKE_CURRENT_LIST_DIR}/samples.c)
