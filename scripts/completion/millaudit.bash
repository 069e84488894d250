# bash completion for millaudit(1). Installed as
# /usr/share/bash-completion/completions/millaudit; works without the bash-completion package too
# (source it from ~/.bashrc).
#
# Completes subcommands, each subcommand's options, option values (variants, report formats, yes/no),
# directories and files where a command takes them, and for --sector the sector names found in the
# database directory already on the command line (DIR of verify/stats/probe, A or B of diff, --out
# of solve, FILE's directory of index-check; the current directory when none is named yet):
# <variant>_W_B_WF_BF from *.mdb, *.sec2 and *.sec; for report, the sectors the --audit store
# recorded (read with sqlite3 when it is installed). After `millaudit help`, the commands.
# tests/integration/test_install.py checks that every option of every --help is offered here.

_millaudit_commands="solve stats dump verify index-check manifest report runs probe diff opening grade attest"

_millaudit_options() {
    case "$1" in
        solve) echo "--variant --stones --sector --with-deps --out --threads --memory-limit --format --open-dir --secval --quiet --help" ;;
        stats) echo "--json --sector --threads --no-digest-check --help" ;;
        dump) echo "--with-entry --no-digest-check --help" ;;
        verify) echo "--sector --audit --resume --stale-after --incremental --shard --plan --max-rows --threads --quiet --json --junit --full-board-draw --allow-bounds --table --wide --seal-key --manifest --attestation --pub --no-manifest --refetch-list --help" ;;
        index-check) echo "--variant --sector --help" ;;
        manifest) echo "--out --audit --chunk-size --chunks --threads --quiet --shard --dir --ignore-missing --ignore-extra --strict --status --warn --allow-partial --help" ;;
        report) echo "--audit --run --sector --format --out --check --help" ;;
        runs) echo "--audit --run --out --json --junit --kind --last --root --since --allow-partial --allow-bounds --pub --seal-key --help" ;;
        probe) echo "--variant --json --stdin --no-digest-check --help" ;;
        diff) echo "--sector --limit --json --audit --threads --quiet --all --full --junit --shard --no-digest-check --help" ;;
        opening) echo "--variant --stones --tt-mb --only-sectors --audit --no-compare --max-rows --json --quiet --no-digest-check --help" ;;
        grade) echo "--player --positions --games --seed --sector --variant --stones --max-plies --engine-timeout" \
                    "--audit --html --json --quiet --run --no-digest-check --help" ;;
        attest) echo "--audit --run --key --out --identity --allow-unverified --allow-partial --allow-unsealed --include-host --vsa --resource-uri --verifier-id --pub --db --threads --json --help" ;;
    esac
}

# Sector names of the database directories named so far on the line (words 2..cword-1).
_millaudit_sectors() {
    local cmd=$1 i w prev dirs=() f name
    for ((i = 2; i < COMP_CWORD; i++)); do
        w=${COMP_WORDS[i]}
        prev=${COMP_WORDS[i - 1]}
        case "$prev" in
            --out)
                [[ $cmd == solve ]] && dirs+=("$w")
                continue ;;
            --audit | --run | --format | --max-rows | --threads | --limit | --chunk-size | --variant | \
                --stones | --sector | --full-board-draw | --plant-bug | --dir | --shard | --tt-mb | --only-sectors | \
                --player | --positions | --games | --seed | --max-plies | --engine-timeout | --html)
                continue ;;
        esac
        if [[ $w != -* && -d $w ]]; then
            dirs+=("$w")
        elif [[ $w != -* && -f $w ]]; then
            dirs+=("$(dirname -- "$w")")
        fi
    done
    if [[ $cmd == report ]]; then
        # the sectors the store recorded: report --sector picks one of a recorded run
        for ((i = 2; i < COMP_CWORD; i++)); do
            if [[ ${COMP_WORDS[i - 1]} == --audit && -f ${COMP_WORDS[i]} ]] && command -v sqlite3 >/dev/null 2>&1; then
                sqlite3 -readonly "${COMP_WORDS[i]}" "SELECT DISTINCT sector FROM sector_results ORDER BY 1" 2>/dev/null
            fi
        done
        return 0
    fi
    ((${#dirs[@]})) || dirs=(.) # nothing named yet: the database may be the current directory
    for w in "${dirs[@]}"; do
        for f in "$w"/*_*_*_*_*.mdb "$w"/*_*_*_*_*.sec2 "$w"/*_*_*_*_*.sec; do
            [[ -f $f ]] || continue
            name=${f##*/}
            name=${name%.*}
            [[ $name =~ ^(std|lask|mora)_[0-9]+_[0-9]+_[0-9]+_[0-9]+$ ]] && echo "$name"
        done
    done | sort -u
}

_millaudit() {
    local cur prev cmd sub
    COMPREPLY=()
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD - 1]}
    if ((COMP_CWORD == 1)); then
        COMPREPLY=($(compgen -W "$_millaudit_commands help -V --version --help" -- "$cur"))
        return 0
    fi
    cmd=${COMP_WORDS[1]}
    sub=${COMP_WORDS[2]}
    if [[ $cmd == help ]]; then
        ((COMP_CWORD == 2)) && COMPREPLY=($(compgen -W "$_millaudit_commands" -- "$cur"))
        return 0
    fi
    case "$prev" in
        --variant) COMPREPLY=($(compgen -W "std lask mora" -- "$cur")); return 0 ;;
        --format)
            if [[ $cmd == solve ]]; then COMPREPLY=($(compgen -W "open malom-sec malom-sec2" -- "$cur"))
            else COMPREPLY=($(compgen -W "text md json html" -- "$cur")); fi
            return 0 ;;
        --junit|--refetch-list|--manifest|--attestation|--pub) COMPREPLY=($(compgen -f -- "$cur")); return 0 ;;
        --root) COMPREPLY=($(compgen -d -- "$cur")); return 0 ;;
        --open-dir) COMPREPLY=($(compgen -d -- "$cur")); return 0 ;;
        --secval) COMPREPLY=($(compgen -f -X '!*.secval' -- "$cur") $(compgen -d -- "$cur")); return 0 ;;
        --full-board-draw) COMPREPLY=($(compgen -W "yes no" -- "$cur")); return 0 ;;
        --stones) COMPREPLY=($(compgen -W "3 4 5 6 7 8 9 10 11 12" -- "$cur")); return 0 ;;
        --sector) COMPREPLY=($(compgen -W "$(_millaudit_sectors "$cmd")" -- "$cur")); return 0 ;;
        --dir) COMPREPLY=($(compgen -d -- "$cur")); return 0 ;;
        --out)
            if [[ $cmd == solve ]]; then COMPREPLY=($(compgen -d -- "$cur")); else COMPREPLY=($(compgen -f -- "$cur")); fi
            return 0 ;;
        --audit) COMPREPLY=($(compgen -f -X '!*.sqlite' -- "$cur") $(compgen -d -- "$cur")); return 0 ;;
        --player) COMPREPLY=($(compgen -W "random ab:material:3 ab:mills+mobility:4 cmd:" -- "$cur")); return 0 ;;
        --html) COMPREPLY=($(compgen -f -- "$cur")); return 0 ;;
        --key | --pub) COMPREPLY=($(compgen -f -- "$cur")); return 0 ;;
        --db) COMPREPLY=($(compgen -d -- "$cur")); return 0 ;;
        --identity) return 0 ;;
        --run | --max-rows | --threads | --limit | --chunk-size | --plant-bug | --shard | --tt-mb | --only-sectors | \
            --positions | --games | --seed | --max-plies | --engine-timeout) return 0 ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_millaudit_options "$cmd")" -- "$cur"))
        return 0
    fi
    case "$cmd" in
        manifest)
            if ((COMP_CWORD == 2)); then COMPREPLY=($(compgen -W "create check merge" -- "$cur")); return 0; fi
            if [[ $sub == check || $sub == merge ]]; then COMPREPLY=($(compgen -f -- "$cur")); else COMPREPLY=($(compgen -d -- "$cur")); fi ;;
        runs)
            if ((COMP_CWORD == 2)); then COMPREPLY=($(compgen -W "export import compare list regressions merge" -- "$cur")); return 0; fi
            [[ $sub == import ]] && COMPREPLY=($(compgen -f -X '!*.json' -- "$cur") $(compgen -d -- "$cur")) ;;
        attest)
            if ((COMP_CWORD == 2)); then COMPREPLY=($(compgen -W "create verify" -- "$cur")); return 0; fi
            [[ $sub == verify ]] && COMPREPLY=($(compgen -f -- "$cur")) ;;
        dump | index-check) COMPREPLY=($(compgen -f -- "$cur")) ;;
        verify | stats | probe | diff | opening | grade) COMPREPLY=($(compgen -d -- "$cur")) ;;
    esac
    return 0
}

complete -o filenames -F _millaudit millaudit
