
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'kubectl-informer' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'kubectl-informer'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'kubectl-informer' {
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use (overrides the context''s)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use (overrides the context''s)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace to work in (default: the context''s namespace, else `default`)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace to work in (default: the context''s namespace, else `default`)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Time limit for each non-watch request, e.g. `5s`, `1m` (0: no limit, like kubectl)')
            [CompletionResult]::new('--health-check', '--health-check', [CompletionResultType]::ParameterName, 'Check a connection that has received nothing for this long, e.g. `30s` (0: never): an HTTP/2 PING whose answer is due within 15 s, as client-go does; on HTTP/1.1, TCP keep-alive probes. A dead peer is then noticed within this plus 15 s, and a response body that stops for as long is abandoned. Costs one 17-byte PING and its answer per quiet connection per period')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log level on stderr, as kubectl''s: -v=1 (up to 5) the context, server, user and resolved resource; -v=6 and up also every request with its status and time')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log level on stderr, as kubectl''s: -v=1 (up to 5) the context, server, user and resolved resource; -v=6 and up also every request with its status and time')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address and port of the API server, e.g. `https://10.0.0.1:6443` (overrides the kubeconfig''s cluster; `https://` is assumed without a scheme)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address and port of the API server, e.g. `https://10.0.0.1:6443` (overrides the kubeconfig''s cluster; `https://` is assumed without a scheme)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for authentication to the API server (overrides the kubeconfig user''s credentials). Prefer a kubeconfig: a flag''s value is visible to other local users in `ps`')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate, e.g. a controller''s service account: `system:serviceaccount:NAMESPACE:NAME`')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeatable); needs --as')
            [CompletionResult]::new('--as-uid', '--as-uid', [CompletionResultType]::ParameterName, 'UID to impersonate; needs --as')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'Path to a certificate file for the certificate authority (overrides the kubeconfig''s)')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'Path to a client certificate file for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'Path to a client key file for TLS')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not check the server''s certificate: the connection is then open to interception')
            [CompletionResult]::new('--tls-server-name', '--tls-server-name', [CompletionResultType]::ParameterName, 'Server name to check the server''s certificate against (default: the host of the server''s address)')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Work across all namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Work across all namespaces')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('tail', 'tail', [CompletionResultType]::ParameterValue, 'Stream the watch events of a resource with their resourceVersions and bookmarks')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'Compare an informer cache with a fresh LIST at one resourceVersion and report drift')
            [CompletionResult]::new('bench', 'bench', [CompletionResultType]::ParameterValue, 'Measure event-handler backlog and workqueue latency under load, with percentiles and pass/fail gates for CI')
            [CompletionResult]::new('conform', 'conform', [CompletionResultType]::ParameterValue, 'Check that a server (or a proxy in front of it) keeps the watch contract informers rely on, one line per check')
            [CompletionResult]::new('completion', 'completion', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('options', 'options', [CompletionResultType]::ParameterValue, 'Print the global options, which every command takes (as `kubectl options`)')
            [CompletionResult]::new('schema', 'schema', [CompletionResultType]::ParameterValue, 'Print the documentation of the JSON outputs (tail''s JSON Lines, diff''s, bench''s and conform''s reports), or one document''s JSON Schema')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'kubectl-informer;tail' {
            [CompletionResult]::new('--owned-kinds', '--owned-kinds', [CompletionResultType]::ParameterName, 'With --follow-owned: the resources owned objects are looked for in, e.g. `rs,pods` (default: those the owner''s kind is known to own, and those a LIST finds owned by the owner''s kind in its namespace)')
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'Label selector, e.g. `app=web,tier!=db`')
            [CompletionResult]::new('--selector', '--selector', [CompletionResultType]::ParameterName, 'Label selector, e.g. `app=web,tier!=db`')
            [CompletionResult]::new('--field-selector', '--field-selector', [CompletionResultType]::ParameterName, 'Field selector, e.g. `metadata.name=foo`')
            [CompletionResult]::new('--initial', '--initial', [CompletionResultType]::ParameterName, 'How the initial state is obtained (without --from-rv): `list` prints the listed objects as ADDED (marked initial), `watch-list` gets them from one watch (sendInitialEvents), `none` prints only changes from now on')
            [CompletionResult]::new('--initial-events-timeout', '--initial-events-timeout', [CompletionResultType]::ParameterName, 'With --initial watch-list: how long the end of the initial events (the k8s.io/initial-events-end bookmark) may take after the watch opened or the last initial event, before falling back to LIST + WATCH (default 10s)')
            [CompletionResult]::new('--from-rv', '--from-rv', [CompletionResultType]::ParameterName, 'Replay: open the watch at this resourceVersion without any LIST and print exactly the events after it')
            [CompletionResult]::new('--on-expired', '--on-expired', [CompletionResultType]::ParameterName, 'What to do when --from-rv is older than the server''s history (410 Gone): `fail` (exit 2) or `relist` (print the current state as relist events and go on)')
            [CompletionResult]::new('--chunk-size', '--chunk-size', [CompletionResultType]::ParameterName, 'Objects per LIST page')
            [CompletionResult]::new('--server-timeout', '--server-timeout', [CompletionResultType]::ParameterName, 'The watch''s timeoutSeconds, whole seconds: the server closes each watch after this, e.g. `30s` (default, or 0: 5-10 minutes at random, as client-go)')
            [CompletionResult]::new('--max-events', '--max-events', [CompletionResultType]::ParameterName, 'Stop after N object events (bookmarks and notices do not count)')
            [CompletionResult]::new('--until-rv', '--until-rv', [CompletionResultType]::ParameterName, 'Stop after the first watch event or bookmark at or past this resourceVersion, or at the end of a LIST at or past it')
            [CompletionResult]::new('--for', '--for', [CompletionResultType]::ParameterName, 'Stop after this much wall-clock time and exit 0, e.g. `30s`, `5m`')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Give up when --until-rv or --max-events is not reached within DURATION: stop and exit 124 (for a plain time box, use --for)')
            [CompletionResult]::new('--record', '--record', [CompletionResultType]::ParameterName, 'Also write the events as JSON Lines (the recording format) to FILE, whatever -o says. FILE must not exist yet')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use (overrides the context''s)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use (overrides the context''s)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace to work in (default: the context''s namespace, else `default`)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace to work in (default: the context''s namespace, else `default`)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Time limit for each non-watch request, e.g. `5s`, `1m` (0: no limit, like kubectl)')
            [CompletionResult]::new('--health-check', '--health-check', [CompletionResultType]::ParameterName, 'Check a connection that has received nothing for this long, e.g. `30s` (0: never): an HTTP/2 PING whose answer is due within 15 s, as client-go does; on HTTP/1.1, TCP keep-alive probes. A dead peer is then noticed within this plus 15 s, and a response body that stops for as long is abandoned. Costs one 17-byte PING and its answer per quiet connection per period')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log level on stderr, as kubectl''s: -v=1 (up to 5) the context, server, user and resolved resource; -v=6 and up also every request with its status and time')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log level on stderr, as kubectl''s: -v=1 (up to 5) the context, server, user and resolved resource; -v=6 and up also every request with its status and time')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address and port of the API server, e.g. `https://10.0.0.1:6443` (overrides the kubeconfig''s cluster; `https://` is assumed without a scheme)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address and port of the API server, e.g. `https://10.0.0.1:6443` (overrides the kubeconfig''s cluster; `https://` is assumed without a scheme)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for authentication to the API server (overrides the kubeconfig user''s credentials). Prefer a kubeconfig: a flag''s value is visible to other local users in `ps`')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate, e.g. a controller''s service account: `system:serviceaccount:NAMESPACE:NAME`')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeatable); needs --as')
            [CompletionResult]::new('--as-uid', '--as-uid', [CompletionResultType]::ParameterName, 'UID to impersonate; needs --as')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'Path to a certificate file for the certificate authority (overrides the kubeconfig''s)')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'Path to a client certificate file for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'Path to a client key file for TLS')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not check the server''s certificate: the connection is then open to interception')
            [CompletionResult]::new('--tls-server-name', '--tls-server-name', [CompletionResultType]::ParameterName, 'Server name to check the server''s certificate against (default: the host of the server''s address)')
            [CompletionResult]::new('--follow-owned', '--follow-owned', [CompletionResultType]::ParameterName, 'Also tail what the named object owns, transitively: every object whose ownerReferences point to it or to an object it owns (a Deployment''s ReplicaSets and their Pods), as they appear and go, in one stream')
            [CompletionResult]::new('--no-bookmarks', '--no-bookmarks', [CompletionResultType]::ParameterName, 'Do not request or print BOOKMARK events')
            [CompletionResult]::new('--no-reconnect', '--no-reconnect', [CompletionResultType]::ParameterName, 'Exit when the server closes the watch (0 on a normal close, 2 on an error) instead of re-opening it from the last resourceVersion')
            [CompletionResult]::new('--diff', '--diff', [CompletionResultType]::ParameterName, 'Print each MODIFIED as a unified diff of the object (as YAML) against its previous version; with -o json, each MODIFIED gains `patch`, the JSON Patch (RFC 6902) between them. metadata.resourceVersion, managedFields and generation are left out (see --diff-all)')
            [CompletionResult]::new('--diff-all', '--diff-all', [CompletionResultType]::ParameterName, '--diff with every field compared, those three included: the patch turns the previous object into the new one exactly')
            [CompletionResult]::new('--metadata-only', '--metadata-only', [CompletionResultType]::ParameterName, 'Watch metadata only (PartialObjectMetadata): much less data for large objects')
            [CompletionResult]::new('--show-secret-data', '--show-secret-data', [CompletionResultType]::ParameterName, 'Print the values of Secret `data` and `stringData` (redacted by default)')
            [CompletionResult]::new('--stats', '--stats', [CompletionResultType]::ParameterName, 'Print a summary on stderr at exit (on by default when stderr is a terminal)')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Work across all namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Work across all namespaces')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-informer;diff' {
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'Label selector, e.g. `app=web`')
            [CompletionResult]::new('--selector', '--selector', [CompletionResultType]::ParameterName, 'Label selector, e.g. `app=web`')
            [CompletionResult]::new('--field-selector', '--field-selector', [CompletionResultType]::ParameterName, 'Field selector, e.g. `metadata.name=foo`')
            [CompletionResult]::new('--initial', '--initial', [CompletionResultType]::ParameterName, 'How the informer gets its initial state')
            [CompletionResult]::new('--initial-events-timeout', '--initial-events-timeout', [CompletionResultType]::ParameterName, 'With --initial watch-list: how long the end of the initial events (the k8s.io/initial-events-end bookmark) may take after the watch opened or the last initial event, before falling back to LIST + WATCH (default 10s)')
            [CompletionResult]::new('--settle', '--settle', [CompletionResultType]::ParameterName, 'Keep the informer watching this long (with its reconnects and relists) before comparing')
            [CompletionResult]::new('--every', '--every', [CompletionResultType]::ParameterName, 'Compare again at this interval while the informer keeps running (a drift watchdog); stop with Ctrl-C or --for')
            [CompletionResult]::new('--for', '--for', [CompletionResultType]::ParameterName, 'With --every: how long the watchdog runs, e.g. `1h` (exit 0 or 1 by its last comparison)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Give up when the comparison (sync, --settle, compare) has not finished within DURATION: stop and exit 124. Not with --every, which has no end: use --for')
            [CompletionResult]::new('--chunk-size', '--chunk-size', [CompletionResultType]::ParameterName, 'Objects per LIST page')
            [CompletionResult]::new('--cache-file', '--cache-file', [CompletionResultType]::ParameterName, 'Compare a saved cache (JSON Lines in tail''s recording format) with a LIST taken now, instead of running an informer')
            [CompletionResult]::new('--save-cache', '--save-cache', [CompletionResultType]::ParameterName, 'Write the informer''s cache to FILE (tail''s recording format) once synced. FILE must not exist yet')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use (overrides the context''s)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use (overrides the context''s)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace to work in (default: the context''s namespace, else `default`)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace to work in (default: the context''s namespace, else `default`)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Time limit for each non-watch request, e.g. `5s`, `1m` (0: no limit, like kubectl)')
            [CompletionResult]::new('--health-check', '--health-check', [CompletionResultType]::ParameterName, 'Check a connection that has received nothing for this long, e.g. `30s` (0: never): an HTTP/2 PING whose answer is due within 15 s, as client-go does; on HTTP/1.1, TCP keep-alive probes. A dead peer is then noticed within this plus 15 s, and a response body that stops for as long is abandoned. Costs one 17-byte PING and its answer per quiet connection per period')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log level on stderr, as kubectl''s: -v=1 (up to 5) the context, server, user and resolved resource; -v=6 and up also every request with its status and time')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log level on stderr, as kubectl''s: -v=1 (up to 5) the context, server, user and resolved resource; -v=6 and up also every request with its status and time')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address and port of the API server, e.g. `https://10.0.0.1:6443` (overrides the kubeconfig''s cluster; `https://` is assumed without a scheme)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address and port of the API server, e.g. `https://10.0.0.1:6443` (overrides the kubeconfig''s cluster; `https://` is assumed without a scheme)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for authentication to the API server (overrides the kubeconfig user''s credentials). Prefer a kubeconfig: a flag''s value is visible to other local users in `ps`')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate, e.g. a controller''s service account: `system:serviceaccount:NAMESPACE:NAME`')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeatable); needs --as')
            [CompletionResult]::new('--as-uid', '--as-uid', [CompletionResultType]::ParameterName, 'UID to impersonate; needs --as')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'Path to a certificate file for the certificate authority (overrides the kubeconfig''s)')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'Path to a client certificate file for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'Path to a client key file for TLS')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not check the server''s certificate: the connection is then open to interception')
            [CompletionResult]::new('--tls-server-name', '--tls-server-name', [CompletionResultType]::ParameterName, 'Server name to check the server''s certificate against (default: the host of the server''s address)')
            [CompletionResult]::new('--show-fields', '--show-fields', [CompletionResultType]::ParameterName, 'For stale and content drift, say which fields differ')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Work across all namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Work across all namespaces')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-informer;bench' {
            [CompletionResult]::new('--from-file', '--from-file', [CompletionResultType]::ParameterName, 'Replay a recording (tail''s JSON Lines) offline instead of watching a cluster')
            [CompletionResult]::new('--speed', '--speed', [CompletionResultType]::ParameterName, 'Replay speed with --from-file: `max`, `1x` (the recorded spacing), `10x`')
            [CompletionResult]::new('--objects', '--objects', [CompletionResultType]::ParameterName, 'Objects the generator creates before the clock starts')
            [CompletionResult]::new('--rate', '--rate', [CompletionResultType]::ParameterName, 'Writes per second during the run (creates, updates, deletes): `100` or `100/s`')
            [CompletionResult]::new('--for', '--for', [CompletionResultType]::ParameterName, 'How long the measured run lasts (after --warmup), e.g. `30s`, `5m`; live runs only [default: 30s]. `--duration` is its older name')
            [CompletionResult]::new('--duration', '--duration', [CompletionResultType]::ParameterName, 'How long the measured run lasts (after --warmup), e.g. `30s`, `5m`; live runs only [default: 30s]. `--duration` is its older name')
            [CompletionResult]::new('--warmup', '--warmup', [CompletionResultType]::ParameterName, 'Time at the start excluded from the figures')
            [CompletionResult]::new('--template', '--template', [CompletionResultType]::ParameterName, 'Make the load with objects of this manifest (YAML or JSON of one object of RESOURCE, a CRD''s included): created with generated names, then only updated by --mutate')
            [CompletionResult]::new('--mutate', '--mutate', [CompletionResultType]::ParameterName, 'With --template: the field each update sets, and how its values are made (`counter` or `random`), e.g. ''spec.template.metadata.annotations.rev=counter'' (default: an annotation of the pod template when there is one, else a label)')
            [CompletionResult]::new('--react', '--react', [CompletionResultType]::ParameterName, 'Measure a real controller''s reaction to each write: `observed-generation`, `owned:RESOURCE` (e.g. owned:replicasets) or `condition:TYPE[=STATUS]` (e.g. condition:Available=True). With --template (bench''s writes), or with --no-churn (observed-generation only: others'' writes, seen as generations going up)')
            [CompletionResult]::new('--reaction-timeout', '--reaction-timeout', [CompletionResultType]::ParameterName, 'With --react: a write with no reaction within this long counts in writesWithoutReaction')
            [CompletionResult]::new('--handlers', '--handlers', [CompletionResultType]::ParameterName, 'Event handlers (informer listeners), each with its own pending buffer')
            [CompletionResult]::new('--handler-time', '--handler-time', [CompletionResultType]::ParameterName, 'How long each handler takes: `2ms`, `exp:2ms` (exponential, mean 2ms), `uniform:1ms..5ms`. The handler sleeps without using the CPU, like one waiting on I/O')
            [CompletionResult]::new('--workers', '--workers', [CompletionResultType]::ParameterName, 'Workers draining the workqueue')
            [CompletionResult]::new('--work-time', '--work-time', [CompletionResultType]::ParameterName, 'How long each work item takes (same forms as --handler-time)')
            [CompletionResult]::new('--error-rate', '--error-rate', [CompletionResultType]::ParameterName, 'Percentage of work items that fail and are re-queued rate-limited (client-go''s default controller rate limiter), e.g. `5`')
            [CompletionResult]::new('--resync', '--resync', [CompletionResultType]::ParameterName, 'Resync period of every handler, e.g. `30s` (default: none)')
            [CompletionResult]::new('--seed', '--seed', [CompletionResultType]::ParameterName, 'Seed of the handler, work and load draws (the same seed repeats a run''s choices)')
            [CompletionResult]::new('--fail-if', '--fail-if', [CompletionResultType]::ParameterName, 'Fail (exit 1) when EXPR holds, e.g. ''queueDuration.p99 > 50ms''. Repeatable')
            [CompletionResult]::new('--baseline', '--baseline', [CompletionResultType]::ParameterName, 'An earlier --export-json to compare with: a latency figure (p50, p90, p99, mean) that got worse by more than --tolerance fails the run')
            [CompletionResult]::new('--tolerance', '--tolerance', [CompletionResultType]::ParameterName, 'Allowed worsening against --baseline, in percent')
            [CompletionResult]::new('--export-json', '--export-json', [CompletionResultType]::ParameterName, 'Write the report as JSON (schema: `kubectl informer schema`) to FILE')
            [CompletionResult]::new('--export-markdown', '--export-markdown', [CompletionResultType]::ParameterName, 'Write the figures as Markdown tables with Mermaid charts of backlog, depth and latency (for a pull-request comment or a job summary) to FILE')
            [CompletionResult]::new('--export-html', '--export-html', [CompletionResultType]::ParameterName, 'Write the figures as one self-contained HTML page (tables and SVG charts, nothing fetched) to FILE')
            [CompletionResult]::new('--export-prometheus', '--export-prometheus', [CompletionResultType]::ParameterName, 'Write the metrics in Prometheus text format, with client-go''s workqueue_* names, to FILE')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format on stdout: the table, or the report''s JSON document (as --export-json)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format on stdout: the table, or the report''s JSON document (as --export-json)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use (overrides the context''s)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use (overrides the context''s)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace to work in (default: the context''s namespace, else `default`)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace to work in (default: the context''s namespace, else `default`)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Time limit for each non-watch request, e.g. `5s`, `1m` (0: no limit, like kubectl)')
            [CompletionResult]::new('--health-check', '--health-check', [CompletionResultType]::ParameterName, 'Check a connection that has received nothing for this long, e.g. `30s` (0: never): an HTTP/2 PING whose answer is due within 15 s, as client-go does; on HTTP/1.1, TCP keep-alive probes. A dead peer is then noticed within this plus 15 s, and a response body that stops for as long is abandoned. Costs one 17-byte PING and its answer per quiet connection per period')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log level on stderr, as kubectl''s: -v=1 (up to 5) the context, server, user and resolved resource; -v=6 and up also every request with its status and time')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log level on stderr, as kubectl''s: -v=1 (up to 5) the context, server, user and resolved resource; -v=6 and up also every request with its status and time')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address and port of the API server, e.g. `https://10.0.0.1:6443` (overrides the kubeconfig''s cluster; `https://` is assumed without a scheme)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address and port of the API server, e.g. `https://10.0.0.1:6443` (overrides the kubeconfig''s cluster; `https://` is assumed without a scheme)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for authentication to the API server (overrides the kubeconfig user''s credentials). Prefer a kubeconfig: a flag''s value is visible to other local users in `ps`')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate, e.g. a controller''s service account: `system:serviceaccount:NAMESPACE:NAME`')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeatable); needs --as')
            [CompletionResult]::new('--as-uid', '--as-uid', [CompletionResultType]::ParameterName, 'UID to impersonate; needs --as')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'Path to a certificate file for the certificate authority (overrides the kubeconfig''s)')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'Path to a client certificate file for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'Path to a client key file for TLS')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not check the server''s certificate: the connection is then open to interception')
            [CompletionResult]::new('--tls-server-name', '--tls-server-name', [CompletionResultType]::ParameterName, 'Server name to check the server''s certificate against (default: the host of the server''s address)')
            [CompletionResult]::new('--no-churn', '--no-churn', [CompletionResultType]::ParameterName, 'Make no load: measure the traffic of an existing namespace (-n) or of all (-A)')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Work across all namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Work across all namespaces')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-informer;conform' {
            [CompletionResult]::new('--template', '--template', [CompletionResultType]::ParameterName, 'A manifest (YAML or JSON) of one object of RESOURCE, which conform creates copies of: needed to write any resource but configmaps')
            [CompletionResult]::new('--initial-events-timeout', '--initial-events-timeout', [CompletionResultType]::ParameterName, 'Check 7: how long the end of the initial events may take after the watch opened or the last initial event')
            [CompletionResult]::new('--delivery-limit', '--delivery-limit', [CompletionResultType]::ParameterName, 'Check 10: how soon a write''s event must arrive (a proxy that buffers the stream delivers it when its buffer fills or a timer fires)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use (overrides the context''s)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use (overrides the context''s)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace to work in (default: the context''s namespace, else `default`)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace to work in (default: the context''s namespace, else `default`)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Time limit for each non-watch request, e.g. `5s`, `1m` (0: no limit, like kubectl)')
            [CompletionResult]::new('--health-check', '--health-check', [CompletionResultType]::ParameterName, 'Check a connection that has received nothing for this long, e.g. `30s` (0: never): an HTTP/2 PING whose answer is due within 15 s, as client-go does; on HTTP/1.1, TCP keep-alive probes. A dead peer is then noticed within this plus 15 s, and a response body that stops for as long is abandoned. Costs one 17-byte PING and its answer per quiet connection per period')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log level on stderr, as kubectl''s: -v=1 (up to 5) the context, server, user and resolved resource; -v=6 and up also every request with its status and time')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log level on stderr, as kubectl''s: -v=1 (up to 5) the context, server, user and resolved resource; -v=6 and up also every request with its status and time')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address and port of the API server, e.g. `https://10.0.0.1:6443` (overrides the kubeconfig''s cluster; `https://` is assumed without a scheme)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address and port of the API server, e.g. `https://10.0.0.1:6443` (overrides the kubeconfig''s cluster; `https://` is assumed without a scheme)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for authentication to the API server (overrides the kubeconfig user''s credentials). Prefer a kubeconfig: a flag''s value is visible to other local users in `ps`')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate, e.g. a controller''s service account: `system:serviceaccount:NAMESPACE:NAME`')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeatable); needs --as')
            [CompletionResult]::new('--as-uid', '--as-uid', [CompletionResultType]::ParameterName, 'UID to impersonate; needs --as')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'Path to a certificate file for the certificate authority (overrides the kubeconfig''s)')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'Path to a client certificate file for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'Path to a client key file for TLS')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not check the server''s certificate: the connection is then open to interception')
            [CompletionResult]::new('--tls-server-name', '--tls-server-name', [CompletionResultType]::ParameterName, 'Server name to check the server''s certificate against (default: the host of the server''s address)')
            [CompletionResult]::new('--read-only', '--read-only', [CompletionResultType]::ParameterName, 'Write nothing: the checks run on the namespace of -n (or the context''s) and those that need a write are SKIP. Without it conform writes only in a scratch namespace it creates and deletes, and only objects it created there')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Work across all namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Work across all namespaces')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-informer;completion' {
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use (overrides the context''s)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use (overrides the context''s)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace to work in (default: the context''s namespace, else `default`)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace to work in (default: the context''s namespace, else `default`)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Time limit for each non-watch request, e.g. `5s`, `1m` (0: no limit, like kubectl)')
            [CompletionResult]::new('--health-check', '--health-check', [CompletionResultType]::ParameterName, 'Check a connection that has received nothing for this long, e.g. `30s` (0: never): an HTTP/2 PING whose answer is due within 15 s, as client-go does; on HTTP/1.1, TCP keep-alive probes. A dead peer is then noticed within this plus 15 s, and a response body that stops for as long is abandoned. Costs one 17-byte PING and its answer per quiet connection per period')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log level on stderr, as kubectl''s: -v=1 (up to 5) the context, server, user and resolved resource; -v=6 and up also every request with its status and time')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log level on stderr, as kubectl''s: -v=1 (up to 5) the context, server, user and resolved resource; -v=6 and up also every request with its status and time')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address and port of the API server, e.g. `https://10.0.0.1:6443` (overrides the kubeconfig''s cluster; `https://` is assumed without a scheme)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address and port of the API server, e.g. `https://10.0.0.1:6443` (overrides the kubeconfig''s cluster; `https://` is assumed without a scheme)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for authentication to the API server (overrides the kubeconfig user''s credentials). Prefer a kubeconfig: a flag''s value is visible to other local users in `ps`')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate, e.g. a controller''s service account: `system:serviceaccount:NAMESPACE:NAME`')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeatable); needs --as')
            [CompletionResult]::new('--as-uid', '--as-uid', [CompletionResultType]::ParameterName, 'UID to impersonate; needs --as')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'Path to a certificate file for the certificate authority (overrides the kubeconfig''s)')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'Path to a client certificate file for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'Path to a client key file for TLS')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not check the server''s certificate: the connection is then open to interception')
            [CompletionResult]::new('--tls-server-name', '--tls-server-name', [CompletionResultType]::ParameterName, 'Server name to check the server''s certificate against (default: the host of the server''s address)')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Work across all namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Work across all namespaces')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-informer;options' {
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use (overrides the context''s)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use (overrides the context''s)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace to work in (default: the context''s namespace, else `default`)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace to work in (default: the context''s namespace, else `default`)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Time limit for each non-watch request, e.g. `5s`, `1m` (0: no limit, like kubectl)')
            [CompletionResult]::new('--health-check', '--health-check', [CompletionResultType]::ParameterName, 'Check a connection that has received nothing for this long, e.g. `30s` (0: never): an HTTP/2 PING whose answer is due within 15 s, as client-go does; on HTTP/1.1, TCP keep-alive probes. A dead peer is then noticed within this plus 15 s, and a response body that stops for as long is abandoned. Costs one 17-byte PING and its answer per quiet connection per period')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log level on stderr, as kubectl''s: -v=1 (up to 5) the context, server, user and resolved resource; -v=6 and up also every request with its status and time')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log level on stderr, as kubectl''s: -v=1 (up to 5) the context, server, user and resolved resource; -v=6 and up also every request with its status and time')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address and port of the API server, e.g. `https://10.0.0.1:6443` (overrides the kubeconfig''s cluster; `https://` is assumed without a scheme)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address and port of the API server, e.g. `https://10.0.0.1:6443` (overrides the kubeconfig''s cluster; `https://` is assumed without a scheme)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for authentication to the API server (overrides the kubeconfig user''s credentials). Prefer a kubeconfig: a flag''s value is visible to other local users in `ps`')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate, e.g. a controller''s service account: `system:serviceaccount:NAMESPACE:NAME`')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeatable); needs --as')
            [CompletionResult]::new('--as-uid', '--as-uid', [CompletionResultType]::ParameterName, 'UID to impersonate; needs --as')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'Path to a certificate file for the certificate authority (overrides the kubeconfig''s)')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'Path to a client certificate file for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'Path to a client key file for TLS')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not check the server''s certificate: the connection is then open to interception')
            [CompletionResult]::new('--tls-server-name', '--tls-server-name', [CompletionResultType]::ParameterName, 'Server name to check the server''s certificate against (default: the host of the server''s address)')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Work across all namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Work across all namespaces')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-informer;schema' {
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use (overrides the context''s)')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use (overrides the context''s)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace to work in (default: the context''s namespace, else `default`)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace to work in (default: the context''s namespace, else `default`)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'Time limit for each non-watch request, e.g. `5s`, `1m` (0: no limit, like kubectl)')
            [CompletionResult]::new('--health-check', '--health-check', [CompletionResultType]::ParameterName, 'Check a connection that has received nothing for this long, e.g. `30s` (0: never): an HTTP/2 PING whose answer is due within 15 s, as client-go does; on HTTP/1.1, TCP keep-alive probes. A dead peer is then noticed within this plus 15 s, and a response body that stops for as long is abandoned. Costs one 17-byte PING and its answer per quiet connection per period')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log level on stderr, as kubectl''s: -v=1 (up to 5) the context, server, user and resolved resource; -v=6 and up also every request with its status and time')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log level on stderr, as kubectl''s: -v=1 (up to 5) the context, server, user and resolved resource; -v=6 and up also every request with its status and time')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address and port of the API server, e.g. `https://10.0.0.1:6443` (overrides the kubeconfig''s cluster; `https://` is assumed without a scheme)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address and port of the API server, e.g. `https://10.0.0.1:6443` (overrides the kubeconfig''s cluster; `https://` is assumed without a scheme)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for authentication to the API server (overrides the kubeconfig user''s credentials). Prefer a kubeconfig: a flag''s value is visible to other local users in `ps`')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate, e.g. a controller''s service account: `system:serviceaccount:NAMESPACE:NAME`')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeatable); needs --as')
            [CompletionResult]::new('--as-uid', '--as-uid', [CompletionResultType]::ParameterName, 'UID to impersonate; needs --as')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'Path to a certificate file for the certificate authority (overrides the kubeconfig''s)')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'Path to a client certificate file for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'Path to a client key file for TLS')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not check the server''s certificate: the connection is then open to interception')
            [CompletionResult]::new('--tls-server-name', '--tls-server-name', [CompletionResultType]::ParameterName, 'Server name to check the server''s certificate against (default: the host of the server''s address)')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Work across all namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Work across all namespaces')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-informer;help' {
            [CompletionResult]::new('tail', 'tail', [CompletionResultType]::ParameterValue, 'Stream the watch events of a resource with their resourceVersions and bookmarks')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'Compare an informer cache with a fresh LIST at one resourceVersion and report drift')
            [CompletionResult]::new('bench', 'bench', [CompletionResultType]::ParameterValue, 'Measure event-handler backlog and workqueue latency under load, with percentiles and pass/fail gates for CI')
            [CompletionResult]::new('conform', 'conform', [CompletionResultType]::ParameterValue, 'Check that a server (or a proxy in front of it) keeps the watch contract informers rely on, one line per check')
            [CompletionResult]::new('completion', 'completion', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('options', 'options', [CompletionResultType]::ParameterValue, 'Print the global options, which every command takes (as `kubectl options`)')
            [CompletionResult]::new('schema', 'schema', [CompletionResultType]::ParameterValue, 'Print the documentation of the JSON outputs (tail''s JSON Lines, diff''s, bench''s and conform''s reports), or one document''s JSON Schema')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'kubectl-informer;help;tail' {
            break
        }
        'kubectl-informer;help;diff' {
            break
        }
        'kubectl-informer;help;bench' {
            break
        }
        'kubectl-informer;help;conform' {
            break
        }
        'kubectl-informer;help;completion' {
            break
        }
        'kubectl-informer;help;options' {
            break
        }
        'kubectl-informer;help;schema' {
            break
        }
        'kubectl-informer;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
