# The search algorithm (bisect.c; plan.c: rounds of k probes at once), the session behind its probe seam (session.c,
# probe.c, comparison.c, sign.c, pooled.c, share.c, search.c, scan.c, result.c), its options' validator (measurement.c) and the call-tree step.
target_sources(culprit PRIVATE ${CMAKE_CURRENT_LIST_DIR}/bisect.c
  ${CMAKE_CURRENT_LIST_DIR}/plan.c ${CMAKE_CURRENT_LIST_DIR}/fanout.c
  ${CMAKE_CURRENT_LIST_DIR}/fanout_finish.c
  ${CMAKE_CURRENT_LIST_DIR}/session.c ${CMAKE_CURRENT_LIST_DIR}/measurement.c
  ${CMAKE_CURRENT_LIST_DIR}/probe.c
  ${CMAKE_CURRENT_LIST_DIR}/command.c
  ${CMAKE_CURRENT_LIST_DIR}/comparison.c ${CMAKE_CURRENT_LIST_DIR}/sign.c
  ${CMAKE_CURRENT_LIST_DIR}/pooled.c ${CMAKE_CURRENT_LIST_DIR}/share.c
  ${CMAKE_CURRENT_LIST_DIR}/search.c
  ${CMAKE_CURRENT_LIST_DIR}/scan.c ${CMAKE_CURRENT_LIST_DIR}/result.c
  ${CMAKE_CURRENT_LIST_DIR}/confirm.c ${CMAKE_CURRENT_LIST_DIR}/explain.c)
# check --investigate: the regressed tests' ranges bisected within a budget.
target_sources(culprit PRIVATE ${CMAKE_CURRENT_LIST_DIR}/investigate.c)
target_sources(culprit PRIVATE ${CMAKE_CURRENT_LIST_DIR}/calltree.c)
# The bisection's document (culprit bisect --json): its writer and its reader.
target_sources(culprit PRIVATE ${CMAKE_CURRENT_LIST_DIR}/bisect_json.c
  ${CMAKE_CURRENT_LIST_DIR}/bisect_json_read.c)
# --auto's choice of the two ends from a test's history.
target_sources(culprit PRIVATE ${CMAKE_CURRENT_LIST_DIR}/auto.c)
