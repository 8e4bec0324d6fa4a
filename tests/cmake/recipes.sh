# recipes.sh: reads the docs' recipes, sourced by the tests that run them as printed
# (ci_workflow_test.sh, meson_test.sh). A recipe is the fenced block after a line
# `<!-- recipe: NAME ... -->`.

# The text between a marker line and the end of the fenced block after it.
block() { # FILE MARKER
  awk -v m="<!-- recipe: $2 " 'index($0, m) == 1 { on = 1; next }
       on == 1 && /^```/ { on = 2; next } on == 2 && /^```/ { exit } on == 2 { print }' "$1"
}
# The first block with that fence under the heading.
section() { # FILE HEADING FENCE
  awk -v h="$2" -v f="$3" 'index($0, h) == 1 { on = 1; next }
       on == 1 && $0 == f { on = 2; next } on == 2 && /^```/ { exit } on == 2 { print }' "$1"
}
