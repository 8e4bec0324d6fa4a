# sources of framework/stats
target_sources(culprit PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/welford.c
  ${CMAKE_CURRENT_LIST_DIR}/describe.c
  ${CMAKE_CURRENT_LIST_DIR}/compare.c
  ${CMAKE_CURRENT_LIST_DIR}/rank.c
  ${CMAKE_CURRENT_LIST_DIR}/sign_interval.c
  ${CMAKE_CURRENT_LIST_DIR}/ks.c
  ${CMAKE_CURRENT_LIST_DIR}/adjust.c
  ${CMAKE_CURRENT_LIST_DIR}/bootstrap.c)
target_sources(culprit PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/regress.c
  ${CMAKE_CURRENT_LIST_DIR}/cluster.c
  ${CMAKE_CURRENT_LIST_DIR}/steady.c)
