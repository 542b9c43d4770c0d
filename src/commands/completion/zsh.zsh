#compdef kubectl-informer
# zsh completion for kubectl-informer. Each <TAB> asks the binary itself, in Cobra's
# `__complete` protocol as kubectl's own completion does: commands, flags and their values,
# resource types (from the server's discovery), object names, namespaces and contexts.
#   source <(kubectl-informer completion zsh)          # or save as _kubectl-informer in $fpath
_kubectl-informer() {
    local out directive line value description
    local -a lines values descriptions
    out=$(${words[1]} __complete "${(@)words[2,CURRENT-1]}" "${words[CURRENT]}" 2>/dev/null) || return 1
    lines=("${(@f)out}")
    directive=${lines[-1]}
    [[ $directive == :* ]] || return 1
    directive=${directive#:}
    lines[-1]=()
    for line in "${lines[@]}"; do
        [[ -n $line ]] || continue
        value=${line%%$'\t'*}
        description=${line#*$'\t'}
        [[ $description == "$line" ]] && description=$value
        values+=("$value")
        descriptions+=("$value  -- $description")
    done
    if ((${#values} > 0)); then
        local -a suffix
        ((directive & 2)) && suffix=(-S '')
        compadd -Q "${suffix[@]}" -d descriptions -a values
        return 0
    fi
    ((directive & 4)) && return 1
    _files
}
if [[ $funcstack[1] == _kubectl-informer ]]; then
    _kubectl-informer "$@"
else
    compdef _kubectl-informer kubectl-informer
fi
