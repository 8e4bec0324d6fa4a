target_sources(culprit PRIVATE ${CMAKE_CURRENT_LIST_DIR}/bisect.c
  ${CMAKE_CURRENT_LIST_DIR}/session.c
  ${CMAKE_CURRENT_LIST_DIR}/json_read.c)
target_sources(culprit PRIVATE ${CMAKE_CURRENT_LIST_DIR}/calltree.c)
