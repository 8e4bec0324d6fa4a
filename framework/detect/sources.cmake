target_sources(culprit PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/categories.c
  ${CMAKE_CURRENT_LIST_DIR}/project.c
  ${CMAKE_CURRENT_LIST_DIR}/assignments.c)
target_sources(culprit PRIVATE ${CMAKE_CURRENT_LIST_DIR}/baseline.c
  ${CMAKE_CURRENT_LIST_DIR}/comparable.c)
target_sources(culprit PRIVATE ${CMAKE_CURRENT_LIST_DIR}/verdict.c ${CMAKE_CURRENT_LIST_DIR}/counted.c
  ${CMAKE_CURRENT_LIST_DIR}/metric.c ${CMAKE_CURRENT_LIST_DIR}/prior.c)
target_sources(culprit PRIVATE ${CMAKE_CURRENT_LIST_DIR}/check.c
  ${CMAKE_CURRENT_LIST_DIR}/check_commit.c)
target_sources(culprit PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/counter_table.c
  ${CMAKE_CURRENT_LIST_DIR}/check_counters.c
  ${CMAKE_CURRENT_LIST_DIR}/clusters.c
  ${CMAKE_CURRENT_LIST_DIR}/rules.c)
