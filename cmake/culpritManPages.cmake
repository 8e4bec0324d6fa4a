# culpritManPages.cmake: writes the man pages of the `culprit` command at build time
# from its own --help, so a page says exactly what --help says (one source: each
# command's option table). `culprit --help` lists the commands, and a command whose
# help lists "subcommands:" gets a page per subcommand, as git has git-bisect(1):
#   culprit(1), culprit-check(1), ..., culprit-calltree-diff(1).
# Commands added later get their pages without touching this file.
#
#   cmake -DCULPRIT=<culprit binary> -DOUT_DIR=<dir> -DVERSION=<x.y.z> -P culpritManPages.cmake
#
# The help is plain text in a fixed shape (framework/cli: "usage:" lines, a
# description, option rows "  --opt ARG    help" with continuation lines indented
# further, other paragraphs); this turns that shape into roff: SYNOPSIS, DESCRIPTION,
# option entries (.TP), and the "Exit status:" line as its own section.
cmake_minimum_required(VERSION 3.17)

# Roff-safe text: backslashes, and '.' or '\'' at the start of a line.
function(_culprit_roff out text)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REPLACE "-" "\\-" text "${text}")
  if(text MATCHES "^[.']")
    set(text "\\&${text}")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# The help of `culprit <words> --help` as a CMake list of lines (semicolons kept).
function(_culprit_help out words)
  execute_process(COMMAND "${CULPRIT}" ${words} --help
                  OUTPUT_VARIABLE text RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "culprit ${words} --help failed (${rc}): ${err}")
  endif()
  string(REPLACE ";" "\\;" text "${text}")
  string(REGEX REPLACE "\n$" "" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(${out} "${lines}" PARENT_SCOPE)
endfunction()

# The names listed under a "commands:" or "subcommands:" heading of a help.
function(_culprit_listed out lines heading)
  set(names "")
  set(inside FALSE)
  foreach(line IN LISTS lines)
    if(line STREQUAL "${heading}")
      set(inside TRUE)
    elseif(inside AND line MATCHES "^  ([a-z][a-z-]*)  ")
      list(APPEND names "${CMAKE_MATCH_1}")
    elseif(inside)
      set(inside FALSE)
    endif()
  endforeach()
  set(${out} "${names}" PARENT_SCOPE)
endfunction()

function(_culprit_page words summary)
  if(words)
    string(REPLACE ";" "-" page "culprit;${words}")
  else()
    set(page culprit)
  endif()
  string(TOUPPER "${page}" title)
  string(REPLACE ";" " " spaced "culprit;${words}")
  _culprit_help(lines "${words}")
  _culprit_roff(summary_roff "${summary}")
  string(CONCAT roff ".\\\" Generated from '${spaced} --help' by culpritManPages.cmake; do not edit.\n"
           ".TH ${title} 1 \"\" \"culprit ${VERSION}\" \"culprit manual\"\n"
           ".SH NAME\n${page} \\- ${summary_roff}\n.SH SYNOPSIS\n.nf\n")
  set(state synopsis)
  foreach(line IN LISTS lines)
    if(state STREQUAL "synopsis")
      if(line MATCHES "^usage: (.*)$")
        _culprit_roff(l "${CMAKE_MATCH_1}")
        string(APPEND roff "${l}\n")
        continue()
      elseif(line MATCHES "^ +(.*)$")
        _culprit_roff(l "       ${CMAKE_MATCH_1}")
        string(APPEND roff "${l}\n")
        continue()
      endif()
      string(APPEND roff ".fi\n.SH DESCRIPTION\n")
      set(state text)
    endif()
    if(line STREQUAL "")
      string(APPEND roff ".PP\n")
      set(state text)
    elseif(line MATCHES "^Exit status: *(.*)$")
      _culprit_roff(l "${CMAKE_MATCH_1}")
      string(APPEND roff ".SH EXIT STATUS\n${l}\n")
      set(state text)
    elseif(line MATCHES "^  ([-a-z][^ ]*( [^ ]+)*)(  +(.*))?$" AND NOT state STREQUAL "more")
      # an option or subcommand row: the term, then its help
      _culprit_roff(term "${CMAKE_MATCH_1}")
      _culprit_roff(help "${CMAKE_MATCH_4}")
      string(APPEND roff ".TP\n.B ${term}\n")
      if(NOT help STREQUAL "")
        string(APPEND roff "${help}\n")
      endif()
      set(state row)
    elseif(state STREQUAL "row" AND line MATCHES "^      +(.*)$")
      _culprit_roff(l "${CMAKE_MATCH_1}")
      string(APPEND roff "${l}\n")
    elseif(line MATCHES "^([a-z]+):$")
      string(TOUPPER "${CMAKE_MATCH_1}" heading)
      string(APPEND roff ".SS ${heading}\n")
      set(state text)
    else()
      if(state STREQUAL "row")
        string(APPEND roff ".PP\n")
      endif()
      string(STRIP "${line}" l)
      _culprit_roff(l "${l}")
      string(APPEND roff "${l}\n")
      set(state text)
    endif()
  endforeach()
  if(state STREQUAL "synopsis")
    string(APPEND roff ".fi\n")
  endif()
  if(DEFINED _culprit_examples_${page})
    string(APPEND roff ".SH EXAMPLES\n")
    set(examples "${_culprit_examples_${page}}")
    while(examples)
      list(POP_FRONT examples what command)
      _culprit_roff(what "${what}")
      _culprit_roff(command "${command}")
      string(APPEND roff ".PP\n${what}\n.PP\n.RS 4\n.nf\n${command}\n.fi\n.RE\n")
    endwhile()
  endif()
  if(words)
    string(APPEND roff ".SH SEE ALSO\n.BR culprit (1)\n")
  else()
    string(APPEND roff ".SH SEE ALSO\nculprit\\-\\fIcommand\\fR(1) for each command; "
                       "the full documentation is docs/cli.md in culprit's sources.\n")
  endif()
  file(WRITE "${OUT_DIR}/${page}.1.tmp" "${roff}")
  file(RENAME "${OUT_DIR}/${page}.1.tmp" "${OUT_DIR}/${page}.1")
endfunction()

# The EXAMPLES section of a page: pairs of what it does and the command, the
# recipes of README.md and docs/cli.md (--help stays short; these are the page's).
set(_culprit_examples_culprit
  "Judge the commit checked out against the runs before it, from a build directory outside the repository:"
  "culprit -C ../repo check"
  "A CI job: the shared history in, a verdict, the runs out:"
  "culprit history pull origin && ctest --test-dir build -L perf && culprit check --fail-on minor"
  "and after it, whatever the verdict:"
  "culprit history push origin")
set(_culprit_examples_culprit-check
  "HEAD against the commits before it, failing on a minor regression too, with JUnit and JSON for CI:"
  "culprit check --fail-on minor --junit perf-verdicts.xml --json > verdicts.json"
  "Against one baseline commit, one test only:"
  "culprit check --baseline main --test fib_perf.fib_24"
  "Find the commit and the function of each regression:"
  "culprit check --investigate --fail-on minor")
set(_culprit_examples_culprit-compare
  "Two revisions of the history:"
  "culprit compare main HEAD"
  "Last run's CI artifact against this run's (reports merged by culprit junit):"
  "culprit compare baseline/perf-report.xml perf-report.xml")
set(_culprit_examples_culprit-history
  "A test's measurements along the first-parent history:"
  "culprit history --test fib_perf.fib_24 --limit 10"
  "The shared history of the project's git remote, in before the perf tests run:"
  "culprit history pull origin"
  "and out after them:"
  "culprit history push origin")
set(_culprit_examples_culprit-junit
  "One JUnit report of a whole ctest run (one file per perf test in junit/):"
  "CULPRIT_JUNIT=junit/ ctest --test-dir build -L perf && culprit junit junit/ --output perf-report.xml")
set(_culprit_examples_culprit-report
  "The HTML report, in .culprit/report/index.html:"
  "culprit report"
  "A Markdown summary for a CI step or a pull-request comment:"
  "culprit report --format markdown >> \"$GITHUB_STEP_SUMMARY\"")
set(_culprit_examples_culprit-bisect
  "The commit that made a perf test slower, built and run in temporary checkouts:"
  "culprit bisect --good v1.2 --bad HEAD --build 'make -j2 fib_perf' --run './fib_perf --quiet' --test fib_perf.fib_24"
  "The same for any command:"
  "culprit bisect --good v1.2 --bad HEAD --build make --command './compress big.txt'")
set(_culprit_examples_culprit-calltree-record
  "The call tree of one perf test of a binary built with culprit_instrument():"
  "culprit calltree record --out fib.calltree -- ./fib_perf --filter fib_config")
set(_culprit_examples_culprit-calltree-diff
  "Which functions made the commit slower, and which of their lines it changed:"
  "culprit calltree diff base.calltree test.calltree --commit HEAD")
set(_culprit_examples_culprit-overweight
  "Functions that grew more than their share, from two perf profiles folded:"
  "culprit overweight before.folded after.folded --recurse 3")
set(_culprit_examples_culprit-categories
  "Accept a deliberate change of speed:"
  "culprit categories --accept fib_perf.fib_24")

if(NOT CULPRIT OR NOT OUT_DIR)
  message(FATAL_ERROR "culpritManPages: CULPRIT and OUT_DIR are required")
endif()
# A sanitized build's culprit must not fail the build over a leak report at exit:
# leaks are the unit tests' business.
set(ENV{ASAN_OPTIONS} "detect_leaks=0")
file(REMOVE_RECURSE "${OUT_DIR}")
file(MAKE_DIRECTORY "${OUT_DIR}")
_culprit_help(top "")
_culprit_page("" "performance-aware unit tests: judge, bisect and explain slowdowns")
_culprit_listed(commands "${top}" "commands:")
foreach(command IN LISTS commands)
  set(summary "")
  foreach(line IN LISTS top)
    if(line MATCHES "^  ${command}  +(.*)$")
      set(summary "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  _culprit_page("${command}" "${summary}")
  _culprit_help(lines "${command}")
  _culprit_listed(subcommands "${lines}" "subcommands:")
  foreach(sub IN LISTS subcommands)
    set(sub_summary "")
    foreach(line IN LISTS lines)
      if(line MATCHES "^  ${sub}  +(.*)$")
        set(sub_summary "${CMAKE_MATCH_1}")
      endif()
    endforeach()
    _culprit_page("${command};${sub}" "${sub_summary}")
  endforeach()
endforeach()
