# install_test.cmake: installs the culprit build under test into a fresh prefix and
# checks that every piece of the package is where find_package and pkg-config
# look for it. The consumer tests (consumer_test.cmake) then build against it.
# In: BUILD_DIR (the culprit build), PREFIX, LIBDIR, INCLUDEDIR, BINDIR, MANDIR, DATADIR.
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
  "${LIBDIR}/pkgconfig/culprit.pc"
  "${MANDIR}/man1/culprit.1"
  "${MANDIR}/man1/culprit-check.1"
  "${MANDIR}/man1/culprit-calltree-diff.1"
  "${DATADIR}/bash-completion/completions/culprit")
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

# `man culprit-check` finds the installed page (as `man git-bisect` does), and it says
# what `culprit check --help` says.
find_program(MAN man)
if(MAN)
  set(ENV{MANPATH} "${PREFIX}/${MANDIR}")
  run_or_fail(COMMAND "${MAN}" -P cat culprit-check OUTPUT page)
  run_or_fail(COMMAND "${PREFIX}/${BINDIR}/culprit" check --help OUTPUT help)
  string(REGEX REPLACE "[ \n]+" " " page_flat "${page}")
  foreach(needle IN ITEMS "culprit-check - judge" "--baseline REV" "EXIT STATUS"
                          "EXAMPLES" "culprit check --fail-on minor --junit perf-verdicts.xml")
    if(NOT page_flat MATCHES "${needle}")
      message(FATAL_ERROR "man culprit-check has no '${needle}':\n${page}")
    endif()
  endforeach()
  unset(ENV{MANPATH})
else()
  message(STATUS "man not installed: the page is there, not read")
endif()

# The bash completion reads the installed command's help: commands, subcommands and
# options complete.
find_program(BASH bash)
if(BASH)
  run_or_fail(COMMAND "${BASH}" -c [=[
    PATH="$1:$PATH"; source "$2"
    t() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _culprit; echo "${COMPREPLY[*]}"; }
    t culprit ch; t culprit calltree d; t culprit check --basel
    t culprit check --fail-on mi; t culprit history p]=] bash
    "${PREFIX}/${BINDIR}" "${PREFIX}/${DATADIR}/bash-completion/completions/culprit"
    OUTPUT completed)
  # Values from the option's argument in --help, subcommands from the usage lines.
  if(NOT completed STREQUAL "check\ndiff\n--baseline\nminor\nprune pull push\n")
    message(FATAL_ERROR "the bash completion completed:\n${completed}")
  endif()
endif()
