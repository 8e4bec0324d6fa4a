# install_test.cmake: installs the culprit build under test into a fresh prefix and
# checks that every piece of the package is where find_package and pkg-config
# look for it. The consumer tests (consumer_test.cmake) then build against it.
# In: BUILD_DIR (the culprit build), PREFIX, LIBDIR, INCLUDEDIR, BINDIR.
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
file(REMOVE_RECURSE "${PREFIX}")
run_or_fail(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${PREFIX}")

set(expected
  "${INCLUDEDIR}/culprit/culprit.h"
  "${INCLUDEDIR}/culprit/core.h"
  "${BINDIR}/culprit"
  "${LIBDIR}/cmake/culprit/culpritConfig.cmake"
  "${LIBDIR}/cmake/culprit/culpritConfigVersion.cmake"
  "${LIBDIR}/cmake/culprit/culpritTargets.cmake"
  "${LIBDIR}/cmake/culprit/culprit.cmake"
  "${LIBDIR}/cmake/culprit/culpritDiscoverTests.cmake"
  "${LIBDIR}/pkgconfig/culprit.pc")
foreach(f IN LISTS expected)
  if(NOT EXISTS "${PREFIX}/${f}")
    message(FATAL_ERROR "not installed: ${PREFIX}/${f}")
  endif()
endforeach()
# Both libraries: the static one CMake consumers link, the shared one that plain
# `pkg-config --libs` finds.
foreach(lib IN ITEMS libculprit.a libculprit.so)
  if(NOT EXISTS "${PREFIX}/${LIBDIR}/${lib}")
    message(FATAL_ERROR "${lib} not installed in ${PREFIX}/${LIBDIR}")
  endif()
endforeach()

# The .pc file names the prefix installed to, not the configured one.
file(READ "${PREFIX}/${LIBDIR}/pkgconfig/culprit.pc" pc)
if(NOT pc MATCHES "prefix=${PREFIX}\n")
  message(FATAL_ERROR "culprit.pc does not name prefix ${PREFIX}:\n${pc}")
endif()
message(STATUS "installed to ${PREFIX}: ${lib}")
