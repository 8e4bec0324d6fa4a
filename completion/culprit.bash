# bash completion of the culprit command. The commands, subcommands and options are
# read from culprit's own --help while completing (the same option tables --help and
# the man pages come from), so the completion cannot drift from the command.
# Installed as share/bash-completion/completions/culprit; or: source culprit.bash
#
# What a value completes to follows the option's argument in --help: a list of
# words (--fail-on major|minor|none|uncompared) those words, FILE, DIR and PATH file
# names, REV git's branches and tags, NAME after --test the tests of the history
# (`culprit categories --json`), REMOTE git's remotes; other values (N, CMD,
# PERCENT...) nothing. Subcommands are those listed under "commands:" or
# "subcommands:" and those of the usage lines (culprit history push|pull).

# The names under a "commands:" or "subcommands:" heading of `culprit WORDS --help`,
# and the words of its usage lines (`culprit WORDS a|b [...]`).
_culprit_listed()
{
    local prefix="culprit${*:+ $*}"
    culprit "$@" --help 2>/dev/null |
        sed -n -e '/^\(sub\)\{0,1\}commands:$/,/^$/s/^  \([a-z][a-z-]*\)  .*/\1/p' \
            -e "s/^\(usage:\)\{0,1\} *$prefix \([a-z][a-z|-]*\)\( .*\)\{0,1\}$/\2/p" |
        tr '|' '\n' | sort -u
}

# The argument of option $2 in the help of `culprit $1...` (LEVEL, FILE, a|b|c...).
_culprit_option_arg()
{
    local opt=${*: -1}
    culprit "${@:1:$#-1}" --help 2>/dev/null |
        sed -n -E "s/^  (-[a-zA-Z], )?$opt ([^ ]+).*/\2/p" | head -n 1
}

# The tests of the history, SUITE.TEST, as `culprit categories` lists them.
_culprit_tests()
{
    culprit categories --json 2>/dev/null |
        sed -n -E 's/.*"test": *"([^"]*)".*/\1/p' | sort -u
}

_culprit()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
    local path=() subs i arg

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
    # The value of an option: as its argument in --help says.
    if [[ $prev == --* ]]; then
        arg=$(_culprit_option_arg "${path[@]}" "$prev")
    elif [[ ${path[*]} == "history push" || ${path[*]} == "history pull" ]]; then
        arg=REMOTE
    fi
    case $arg in
    *'|'*) mapfile -t COMPREPLY < <(compgen -W "${arg//|/ }" -- "$cur") ;;
    REV) mapfile -t COMPREPLY < <(compgen -W "HEAD $(git for-each-ref --format='%(refname:short)' \
        refs/heads refs/tags 2>/dev/null)" -- "$cur") ;;
    REMOTE) mapfile -t COMPREPLY < <(compgen -W "$(git remote 2>/dev/null)" -- "$cur") ;;
    NAME) if [[ $prev == --test ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$(_culprit_tests)" -- "$cur")
    fi ;;
    DIR) mapfile -t COMPREPLY < <(compgen -d -- "$cur") ;;
    '' | FILE | PATH | *FILE | *PATH) mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
    *) COMPREPLY=() ;;
    esac
}
complete -o filenames -F _culprit culprit
