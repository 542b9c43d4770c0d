# PowerShell completion for kubectl-informer. Each <TAB> asks the binary itself, in Cobra's
# `__complete` protocol as kubectl's own completion does: commands, flags and their values,
# resource types (from the server's discovery), object names, namespaces and contexts.
#   kubectl-informer completion powershell | Out-String | Invoke-Expression
Register-ArgumentCompleter -Native -CommandName 'kubectl-informer', 'kubectl-informer.exe' -ScriptBlock {
    param($WordToComplete, $CommandAst, $CursorPosition)
    # The command line up to the cursor, its words joined by spaces, as Cobra's script reads it.
    $Command = "$($CommandAst.CommandElements)"
    if ($Command.Length -gt $CursorPosition) { $Command = $Command.Substring(0, $CursorPosition) }
    $Program, $Arguments = $Command.Split(' ', 2)
    $Request = "& '$Program' __complete $Arguments"
    # An empty word under the cursor is passed as "", which every PowerShell version hands on.
    if ($WordToComplete -eq '') { $Request += ' ""' }
    $Out = @(Invoke-Expression -Command $Request 2>$null)
    if ($Out.Count -eq 0 -or -not "$($Out[-1])".StartsWith(':')) { return }
    foreach ($Line in ($Out | Select-Object -SkipLast 1)) {
        if ("$Line" -eq '') { continue }
        $Value, $Description = "$Line" -split "`t", 2
        if (-not $Description) { $Description = $Value }
        [System.Management.Automation.CompletionResult]::new($Value, $Value, 'ParameterValue', $Description)
    }
}
