#!/usr/bin/env bash
# Makes the git history of one root-cause case (docs/calltree.md, "Root-cause
# cases"): four commits, the third of which (tag `culprit`, PROG.patch applied)
# causes the regression; tag `good` is the first. Prints the function that causes it.
#   a  kvstore.c    a new slow helper under existing callers      -> validate_key
#   b  wordindex.c  call counts change upstream, a leaf slower    -> hash_word
#   c  router.c     a slower function called once per run         -> sort_routes
#   d  fig5.c       the paper's Fig. 5 (Heger et al. 2013)        -> fem
#   e  parser.c     a perf test whose body's call count differs   -> unescape
# usage: make_repo.sh CASE REPO FIG5_SOURCE
set -euo pipefail
case=$1 repo=$2 fig5=$3
here=$(cd "$(dirname "$0")" && pwd)
git() { command git -c user.name=e2e -c user.email=e2e@example.org -c commit.gpgsign=false "$@"; }
commit() { git -C "$repo" add -A && git -C "$repo" commit -qm "$1"; }

case $case in
  a) prog=kvstore cause=validate_key ;;
  b) prog=wordindex cause=hash_word ;;
  c) prog=router cause=sort_routes ;;
  d) prog=fig5 cause=fem ;;
  e) prog=parser cause=unescape ;;
  *) echo "make_repo.sh: unknown case '$case' (a to e)" >&2; exit 2 ;;
esac
rm -rf "$repo"
git init -q "$repo"
if [ "$case" = d ]; then
  cp "$fig5" "$repo/fig5.c"
elif [ "$case" = e ]; then
  mkdir "$repo/tests"
  cp "$here/parser.c" "$here/parser.h" "$repo/"
  cp "$here/perf_parser.c" "$repo/tests/"
else
  cp "$here/$prog.c" "$repo/$prog.c"
fi
echo "$prog: root-cause case ($case)" > "$repo/README"
commit "$prog: first version"
git -C "$repo" tag good
echo "Build with cc -O1; see build.sh in the tests." >> "$repo/README"
commit "README: building"
if [ "$case" = d ]; then
  sed -i 's/^    SPIN(10); \/\* fem.s own work \*\/$/    SPIN(1000); \/* fem'"'"'s own work, now 100x *\//' "$repo/fig5.c"
  grep -q 'SPIN(1000)' "$repo/fig5.c" || { echo "make_repo.sh: the fem edit did not apply" >&2; exit 1; }
else
  git -C "$repo" apply "$here/$prog.patch"
fi
commit "$prog: the change that makes it slower"
git -C "$repo" tag culprit
echo "More notes." >> "$repo/README"
commit "README: notes"
echo "$cause"
