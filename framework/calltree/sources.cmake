target_sources(culprit PRIVATE ${CMAKE_CURRENT_LIST_DIR}/model.c)
target_sources(culprit PRIVATE ${CMAKE_CURRENT_LIST_DIR}/file.c)
