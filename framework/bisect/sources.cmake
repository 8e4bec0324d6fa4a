target_sources(culprit PRIVATE ${CMAKE_CURRENT_LIST_DIR}/bisect.c
  ${CMAKE_CURRENT_LIST_DIR}/session.c ${CMAKE_CURRENT_LIST_DIR}/probe.c
  ${CMAKE_CURRENT_LIST_DIR}/compare.c ${CMAKE_CURRENT_LIST_DIR}/search.c ${CMAKE_CURRENT_LIST_DIR}/scan.c)
target_sources(culprit PRIVATE ${CMAKE_CURRENT_LIST_DIR}/calltree.c)
