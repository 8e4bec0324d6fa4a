target_sources(culprit PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/model.c
  ${CMAKE_CURRENT_LIST_DIR}/load.c
  ${CMAKE_CURRENT_LIST_DIR}/format.c
  ${CMAKE_CURRENT_LIST_DIR}/render.c
  ${CMAKE_CURRENT_LIST_DIR}/html.c
  ${CMAKE_CURRENT_LIST_DIR}/html_plot.c
  ${CMAKE_CURRENT_LIST_DIR}/html_labels.c
  ${CMAKE_CURRENT_LIST_DIR}/html_tree.c
  ${CMAKE_CURRENT_LIST_DIR}/markdown.c
  ${CMAKE_CURRENT_LIST_DIR}/json.c
  ${CMAKE_CURRENT_LIST_DIR}/text_summary.c)
# The report's commit window and sources, taken from the repository.
target_sources(culprit PRIVATE ${CMAKE_CURRENT_LIST_DIR}/history_window.c)
