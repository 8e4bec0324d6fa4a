# Sourced by the end-to-end scripts, for what each of them needs first:
#   e2e_workdir NAME  a new directory /tmp/culprit-NAME-XXXXXX in $work, removed when
#                     the script exits (kept when KEEP is set, to look at after a failure);
#   fail MESSAGE      says FAIL: MESSAGE on stderr and exits 1;
#   git               git with an identity of its own, whatever the machine's config.
e2e_workdir() {
  work=$(mktemp -d "/tmp/culprit-$1-XXXXXX")
  trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
}
fail() { echo "FAIL: $*" >&2; exit 1; }
git() { command git -c user.name=e2e -c user.email=e2e@example.org "$@"; }
