target_sources(culprit PRIVATE ${CMAKE_CURRENT_LIST_DIR}/model.c)
target_sources(culprit PRIVATE ${CMAKE_CURRENT_LIST_DIR}/match.c ${CMAKE_CURRENT_LIST_DIR}/folded.c
  ${CMAKE_CURRENT_LIST_DIR}/diff.c ${CMAKE_CURRENT_LIST_DIR}/correlate.c
  ${CMAKE_CURRENT_LIST_DIR}/overweight.c)
target_sources(culprit PRIVATE ${CMAKE_CURRENT_LIST_DIR}/file.c)
