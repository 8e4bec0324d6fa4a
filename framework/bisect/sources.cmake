target_sources(culprit PRIVATE ${CMAKE_CURRENT_LIST_DIR}/bisect.c
  ${CMAKE_CURRENT_LIST_DIR}/session.c)
target_sources(culprit PRIVATE ${CMAKE_CURRENT_LIST_DIR}/calltree.c)
