# fish completion for kubectl-informer. Each <TAB> asks the binary itself, in Cobra's
# `__complete` protocol as kubectl's own completion does: commands, flags and their values,
# resource types (from the server's discovery), object names, namespaces and contexts.
#   kubectl-informer completion fish | source     # or save in ~/.config/fish/completions/
function __kubectl_informer_complete
    set -l words (commandline -opc)
    set -l current (commandline -ct)
    set -l out ($words[1] __complete $words[2..-1] "$current" 2>/dev/null)
    or return
    set -l directive (string replace -r '^:' '' -- $out[-1])
    set -e out[-1]
    if test (count $out) -gt 0
        printf '%s\n' $out
    else if test (math "$directive % 8 - $directive % 4") -eq 0
        __fish_complete_path "$current"
    end
end
complete -c kubectl-informer -f -a '(__kubectl_informer_complete)'
