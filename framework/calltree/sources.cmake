target_sources(culprit PRIVATE ${CMAKE_CURRENT_LIST_DIR}/tree.c)
target_sources(culprit PRIVATE ${CMAKE_CURRENT_LIST_DIR}/match.c ${CMAKE_CURRENT_LIST_DIR}/folded.c
  ${CMAKE_CURRENT_LIST_DIR}/diff.c ${CMAKE_CURRENT_LIST_DIR}/reach.c ${CMAKE_CURRENT_LIST_DIR}/correlate.c
  ${CMAKE_CURRENT_LIST_DIR}/answer.c ${CMAKE_CURRENT_LIST_DIR}/overweight.c
  ${CMAKE_CURRENT_LIST_DIR}/band.c)
target_sources(culprit PRIVATE ${CMAKE_CURRENT_LIST_DIR}/file.c ${CMAKE_CURRENT_LIST_DIR}/callgrind.c
  ${CMAKE_CURRENT_LIST_DIR}/file_write.c ${CMAKE_CURRENT_LIST_DIR}/calltree_json_read.c)
# Symbolization reads the ELF objects' symbol tables and DWARF with libdw/libelf.
# GLOBAL in the fuzz build only, which links a libculprit.a built already with the
# same libraries (tests/fuzz/CMakeLists.txt, CULPRIT_FUZZ_LIBCULPRIT).
set(_culprit_libdw_scope "")
if(CULPRIT_FUZZ)
  set(_culprit_libdw_scope GLOBAL)
endif()
pkg_check_modules(LIBDW REQUIRED IMPORTED_TARGET ${_culprit_libdw_scope} libdw libelf)
target_sources(culprit PRIVATE ${CMAKE_CURRENT_LIST_DIR}/symbolize.c)
target_link_libraries(culprit PRIVATE PkgConfig::LIBDW)
target_sources(culprit PRIVATE ${CMAKE_CURRENT_LIST_DIR}/record.c
  ${CMAKE_CURRENT_LIST_DIR}/diagnose.c ${CMAKE_CURRENT_LIST_DIR}/record_correct.c
  ${CMAKE_CURRENT_LIST_DIR}/record_sample.c ${CMAKE_CURRENT_LIST_DIR}/record_callgrind.c)
# The writers of the call-tree documents (--json of calltree diff and overweight).
target_sources(culprit PRIVATE ${CMAKE_CURRENT_LIST_DIR}/calltree_json.c)
