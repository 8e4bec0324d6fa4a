# culpritWritePc.cmake: runs at install time (install(CODE) in the top-level
# CMakeLists.txt) to write culprit.pc for the prefix being installed to, which
# `cmake --install --prefix` may have changed since configuration.
# In: CULPRIT_PC_IN, CULPRIT_PC_OUT, CULPRIT_PC_LIBDIR, CULPRIT_PC_INCLUDEDIR (relative
# to the prefix, or absolute), PROJECT_DESCRIPTION, PROJECT_VERSION; and, when set,
# CULPRIT_TRACE_PC_IN and CULPRIT_TRACE_PC_OUT: culprit-trace.pc, the trace runtime's.
set(CULPRIT_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
foreach(dir IN ITEMS LIBDIR INCLUDEDIR)
  if(NOT IS_ABSOLUTE "${CULPRIT_PC_${dir}}")
    # Relative to ${prefix}, as pkg-config files usually are, so --define-prefix works.
    set(CULPRIT_PC_${dir} "\${prefix}/${CULPRIT_PC_${dir}}")
  endif()
endforeach()
configure_file("${CULPRIT_PC_IN}" "${CULPRIT_PC_OUT}" @ONLY)
if(CULPRIT_TRACE_PC_IN)
  configure_file("${CULPRIT_TRACE_PC_IN}" "${CULPRIT_TRACE_PC_OUT}" @ONLY)
endif()
