# bash completion for kubectl-informer. Each <TAB> asks the binary itself, in Cobra's
# `__complete` protocol as kubectl's own completion does: commands, flags and their values,
# resource types (from the server's discovery), object names, namespaces and contexts.
#   source <(kubectl-informer completion bash)        # or put this file in bash-completion's dir
_kubectl_informer() {
    local line=${COMP_LINE:0:COMP_POINT} cur="" out directive value
    local -a words
    # The words as the command will see them: `--flag=value` stays one word.
    read -ra words <<< "$line"
    if [[ $line != *[[:space:]] ]] && ((${#words[@]} > 1)); then
        cur=${words[${#words[@]}-1]}
        unset 'words[${#words[@]}-1]'
    fi
    out=$("${words[0]}" __complete "${words[@]:1}" "$cur" 2>/dev/null) || return 0
    directive=${out##*$'\n'}
    [[ $directive == :* ]] || return 0
    directive=${directive#:}
    [[ $out == *$'\n'* ]] && out=${out%$'\n'*} || out=""
    # bash completes only the part of a word after its last COMP_WORDBREAKS character (`=`,
    # `:`): the candidates lose what comes before it.
    local last=${cur##*[=:]}
    local strip=${cur%"$last"}
    COMPREPLY=()
    while IFS= read -r value; do
        value=${value%%$'\t'*}
        [[ -n $value && $value == "$cur"* ]] || continue
        COMPREPLY+=("${value#"$strip"}")
    done <<< "$out"
    ((directive & 2)) && compopt -o nospace 2>/dev/null
    if ((${#COMPREPLY[@]} == 0)) && (((directive & 4) == 0)); then
        compopt -o default 2>/dev/null
    fi
    return 0
}
complete -F _kubectl_informer kubectl-informer
