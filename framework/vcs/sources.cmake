target_sources(culprit PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/ancestry.c
  ${CMAKE_CURRENT_LIST_DIR}/ancestry_read.c
  ${CMAKE_CURRENT_LIST_DIR}/blob.c
  ${CMAKE_CURRENT_LIST_DIR}/changes.c
  ${CMAKE_CURRENT_LIST_DIR}/checkout.c
  ${CMAKE_CURRENT_LIST_DIR}/commit.c
  ${CMAKE_CURRENT_LIST_DIR}/dag.c
  ${CMAKE_CURRENT_LIST_DIR}/head.c
  ${CMAKE_CURRENT_LIST_DIR}/history.c
  ${CMAKE_CURRENT_LIST_DIR}/packwrite.c
  ${CMAKE_CURRENT_LIST_DIR}/refstore.c
  ${CMAKE_CURRENT_LIST_DIR}/remote.c
  ${CMAKE_CURRENT_LIST_DIR}/repo.c
  ${CMAKE_CURRENT_LIST_DIR}/revparse.c
  ${CMAKE_CURRENT_LIST_DIR}/sha1.c)
