# bash completion of the culprit command. The commands, subcommands and options are
# read from culprit's own --help while completing (the same option tables --help and
# the man pages come from), so the completion cannot drift from the command.
# Installed as share/bash-completion/completions/culprit; or: source culprit.bash

# The names under a "commands:" or "subcommands:" heading of `culprit WORDS --help`.
_culprit_listed()
{
    culprit "$@" --help 2>/dev/null |
        sed -n '/^\(sub\)\{0,1\}commands:$/,/^$/s/^  \([a-z][a-z-]*\)  .*/\1/p'
}

_culprit()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
    local path=() subs i

    # The command (and subcommand) typed so far: the words before the cursor that
    # name commands, as deep as the help lists subcommands.
    for ((i = 1; i < COMP_CWORD; i++)); do
        [[ ${COMP_WORDS[i]} == -* ]] && break
        subs=$(_culprit_listed "${path[@]}")
        grep -qx -- "${COMP_WORDS[i]}" <<<"$subs" || break
        path+=("${COMP_WORDS[i]}")
    done
    if [[ $cur != -* && $i -eq $COMP_CWORD ]]; then
        subs=$(_culprit_listed "${path[@]}")
        if [[ -n $subs ]]; then
            mapfile -t COMPREPLY < <(compgen -W "$subs" -- "$cur")
            return
        fi
    fi
    if [[ $cur == -* ]]; then
        local opts
        opts=$(culprit "${path[@]}" --help 2>/dev/null |
            grep -oE '^  (-[a-zA-Z], )?--[a-z][a-z-]*' | grep -oE -- '--[a-z][a-z-]*')
        mapfile -t COMPREPLY < <(compgen -W "$opts --help" -- "$cur")
        return
    fi
    # Values and arguments: files and directories (revisions and test names are the
    # user's to type).
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
}
complete -o filenames -F _culprit culprit
