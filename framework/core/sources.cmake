target_sources(culprit PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/array.c
  ${CMAKE_CURRENT_LIST_DIR}/error.c
  ${CMAKE_CURRENT_LIST_DIR}/buf.c
  ${CMAKE_CURRENT_LIST_DIR}/fs.c
  ${CMAKE_CURRENT_LIST_DIR}/fs_copy.c
  ${CMAKE_CURRENT_LIST_DIR}/fs_remove.c
  ${CMAKE_CURRENT_LIST_DIR}/fs_temp.c
  ${CMAKE_CURRENT_LIST_DIR}/options.c
  ${CMAKE_CURRENT_LIST_DIR}/options_struct.c
  ${CMAKE_CURRENT_LIST_DIR}/parallel.c
  ${CMAKE_CURRENT_LIST_DIR}/process.c
  ${CMAKE_CURRENT_LIST_DIR}/strmap.c
  ${CMAKE_CURRENT_LIST_DIR}/suggest.c
  ${CMAKE_CURRENT_LIST_DIR}/term.c
  ${CMAKE_CURRENT_LIST_DIR}/text.c)
