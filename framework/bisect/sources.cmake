target_sources(culprit PRIVATE ${CMAKE_CURRENT_LIST_DIR}/bisect.c
  ${CMAKE_CURRENT_LIST_DIR}/session.c
  ${CMAKE_CURRENT_LIST_DIR}/bisect_json_read.c)
target_sources(culprit PRIVATE ${CMAKE_CURRENT_LIST_DIR}/calltree.c)
# The writer of the bisection's document (culprit bisect --json).
target_sources(culprit PRIVATE ${CMAKE_CURRENT_LIST_DIR}/bisect_json.c)
# --auto's choice of the two ends from a test's history.
target_sources(culprit PRIVATE ${CMAKE_CURRENT_LIST_DIR}/auto.c)
