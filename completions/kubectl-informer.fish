# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_kubectl_informer_global_optspecs
    string join \n kubeconfig= context= cluster= user= n/namespace= A/all-namespaces request-timeout= health-check= v/v= s/server= token= as= as-group= as-uid= certificate-authority= client-certificate= client-key= insecure-skip-tls-verify= tls-server-name= disable-compression= h/help V/version
end

function __fish_kubectl_informer_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_kubectl_informer_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_kubectl_informer_using_subcommand
    set -l cmd (__fish_kubectl_informer_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c kubectl-informer -n "__fish_kubectl_informer_needs_command" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_needs_command" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_needs_command" -l cluster -d 'The kubeconfig cluster to use (overrides the context\'s)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_needs_command" -l user -d 'The kubeconfig user to use (overrides the context\'s)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_needs_command" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace, else `default`)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_needs_command" -l request-timeout -d 'Time limit for each non-watch request, e.g. `5s`, `1m`, and for any request\'s response headers (0: no limit, like kubectl); without it, response headers are waited for 60s' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_needs_command" -l health-check -d 'Check a connection that has received nothing for this long, e.g. `30s` (0: never): an HTTP/2 PING whose answer is due within 15 s, as client-go does; on HTTP/1.1, TCP keep-alive probes. A dead peer is then noticed within this plus 15 s, and a response body that stops for as long is abandoned. Costs one 17-byte PING and its answer per quiet connection per period' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_needs_command" -s v -l v -d 'Log level on stderr, as kubectl\'s: -v=1 (up to 5) the context, server, user and resolved resource; -v=6 and up also every request with its status and time' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_needs_command" -s s -l server -d 'The address and port of the API server, e.g. `https://10.0.0.1:6443` (overrides the kubeconfig\'s cluster; `https://` is assumed without a scheme)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_needs_command" -l token -d 'Bearer token for authentication to the API server (overrides the kubeconfig user\'s credentials). Prefer a kubeconfig: a flag\'s value is visible to other local users in `ps`' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_needs_command" -l as -d 'Username to impersonate, e.g. a controller\'s service account: `system:serviceaccount:NAMESPACE:NAME`' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_needs_command" -l as-group -d 'Group to impersonate (repeatable); needs --as' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_needs_command" -l as-uid -d 'UID to impersonate; needs --as' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_needs_command" -l certificate-authority -d 'Path to a certificate file for the certificate authority (overrides the kubeconfig\'s)' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_needs_command" -l client-certificate -d 'Path to a client certificate file for TLS' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_needs_command" -l client-key -d 'Path to a client key file for TLS' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_needs_command" -l insecure-skip-tls-verify -d 'Do not check the server\'s certificate: the connection is then open to interception' -r -f -a "true\t''
false\t''"
complete -c kubectl-informer -n "__fish_kubectl_informer_needs_command" -l tls-server-name -d 'Server name to check the server\'s certificate against (default: the host of the server\'s address)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_needs_command" -l disable-compression -d 'Do not ask the server to gzip its responses (as the kubeconfig\'s `disable-compression`)' -r -f -a "true\t''
false\t''"
complete -c kubectl-informer -n "__fish_kubectl_informer_needs_command" -s A -l all-namespaces -d 'Work across all namespaces'
complete -c kubectl-informer -n "__fish_kubectl_informer_needs_command" -s h -l help -d 'Print help'
complete -c kubectl-informer -n "__fish_kubectl_informer_needs_command" -s V -l version -d 'Print version'
complete -c kubectl-informer -n "__fish_kubectl_informer_needs_command" -f -a "tail" -d 'Stream the watch events of a resource with their resourceVersions and bookmarks'
complete -c kubectl-informer -n "__fish_kubectl_informer_needs_command" -f -a "diff" -d 'Compare an informer cache with a fresh LIST at one resourceVersion and report drift'
complete -c kubectl-informer -n "__fish_kubectl_informer_needs_command" -f -a "bench" -d 'Measure event-handler backlog and workqueue latency under load, with percentiles and pass/fail gates for CI'
complete -c kubectl-informer -n "__fish_kubectl_informer_needs_command" -f -a "conform" -d 'Check that a server (or a proxy in front of it) keeps the watch contract informers rely on, one line per check'
complete -c kubectl-informer -n "__fish_kubectl_informer_needs_command" -f -a "top" -d 'A running controller\'s own workqueues, informers and client throttling, from its metrics endpoint, refreshed every interval like kubectl top'
complete -c kubectl-informer -n "__fish_kubectl_informer_needs_command" -f -a "proxy" -d 'Serve the cluster\'s API on a loopback port with your credentials, over HTTPS and HTTP/2 (as kube-apiserver does), for a controller to be started against'
complete -c kubectl-informer -n "__fish_kubectl_informer_needs_command" -f -a "completion" -d 'Print a shell completion script'
complete -c kubectl-informer -n "__fish_kubectl_informer_needs_command" -f -a "version" -d 'Print the client\'s version and commit, and the server\'s version (as `kubectl version`)'
complete -c kubectl-informer -n "__fish_kubectl_informer_needs_command" -f -a "options" -d 'Print the global options, which every command takes (as `kubectl options`)'
complete -c kubectl-informer -n "__fish_kubectl_informer_needs_command" -f -a "schema" -d 'Print the documentation of the JSON outputs (tail\'s JSON Lines, diff\'s, bench\'s and conform\'s reports), or one document\'s JSON Schema'
complete -c kubectl-informer -n "__fish_kubectl_informer_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -l owned-kinds -d 'With --follow-owned: the resources owned objects are looked for in, e.g. `rs,pods` (default: those the owner\'s kind is known to own, and those a LIST finds owned by the owner\'s kind in its namespace)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -s l -l selector -d 'Label selector, e.g. `app=web,tier!=db`' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -l field-selector -d 'Field selector, e.g. `metadata.name=foo`' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -l initial -d 'How the initial state is obtained (without --from-rv): `list` prints the listed objects as ADDED (marked initial), `watch-list` gets them from one watch (sendInitialEvents), `none` prints only changes from now on' -r -f -a "list\t'Paginated LIST, then WATCH from the list\'s resourceVersion'
watch-list\t'One WATCH with sendInitialEvents (KEP-3157); falls back to `list` when refused'
none\t'Start from now: print only changes after the LIST\'s resourceVersion'"
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -l initial-events-timeout -d 'With --initial watch-list: how long the end of the initial events (the k8s.io/initial-events-end bookmark) may take after the watch opened or the last initial event, before falling back to LIST + WATCH (default 10s)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -l from-rv -d 'Replay: open the watch at this resourceVersion without any LIST and print exactly the events after it' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -l on-expired -d 'What to do when --from-rv is older than the server\'s history (410 Gone): `fail` (exit 2) or `relist` (print the current state as relist events and go on)' -r -f -a "fail\t'Exit 2 with the server\'s message'
relist\t'Relist, print what the relist found, and go on watching'"
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -l chunk-size -d 'Objects per LIST page' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -l server-timeout -d 'The watch\'s timeoutSeconds, whole seconds: the server closes each watch after this, e.g. `30s` (default, or 0: 5-10 minutes at random, as client-go)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -l max-events -d 'Stop after N object events (bookmarks and notices do not count)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -l until-rv -d 'Stop after the first watch event or bookmark at or past this resourceVersion, or at the end of a LIST at or past it' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -l for -d 'Stop after this much wall-clock time and exit 0, e.g. `30s`, `5m`' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -l timeout -d 'Give up when --until-rv or --max-events is not reached within DURATION: stop and exit 124 (for a plain time box, use --for)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -l record -d 'Also write the events as JSON Lines (the recording format) to FILE, whatever -o says. FILE must not exist yet' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -l react -d 'Show a controller\'s reaction to each spec change others make to the objects (a watch event whose generation went up; tail writes nothing), with its latency from that event, or that none came within --reaction-timeout: `observed-generation`, `owned:RESOURCE` (e.g. owned:replicasets, watched too) or `condition:TYPE[=STATUS]` (e.g. condition:Available=True). One resource only' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -l reaction-timeout -d 'With --react: how long a reaction may take before a line says none came' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -s o -l output -d 'Output format' -r -f -a "text\t'One aligned line per event; MODIFIED lines say which fields changed'
wide\t'Text plus kind, uid, generation, and the delay between the event\'s arrival and its print'
json\t'JSON Lines, one event per line (schema: `kubectl informer schema`)'
yaml\t'Each object as a YAML document, `---` between them, as `kubectl get -w -o yaml` prints'
name\t'`KIND.GROUP/NAME` per event, as `kubectl get -w -o name` prints'"
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -l cluster -d 'The kubeconfig cluster to use (overrides the context\'s)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -l user -d 'The kubeconfig user to use (overrides the context\'s)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace, else `default`)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -l request-timeout -d 'Time limit for each non-watch request, e.g. `5s`, `1m`, and for any request\'s response headers (0: no limit, like kubectl); without it, response headers are waited for 60s' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -l health-check -d 'Check a connection that has received nothing for this long, e.g. `30s` (0: never): an HTTP/2 PING whose answer is due within 15 s, as client-go does; on HTTP/1.1, TCP keep-alive probes. A dead peer is then noticed within this plus 15 s, and a response body that stops for as long is abandoned. Costs one 17-byte PING and its answer per quiet connection per period' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -s v -l v -d 'Log level on stderr, as kubectl\'s: -v=1 (up to 5) the context, server, user and resolved resource; -v=6 and up also every request with its status and time' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -s s -l server -d 'The address and port of the API server, e.g. `https://10.0.0.1:6443` (overrides the kubeconfig\'s cluster; `https://` is assumed without a scheme)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -l token -d 'Bearer token for authentication to the API server (overrides the kubeconfig user\'s credentials). Prefer a kubeconfig: a flag\'s value is visible to other local users in `ps`' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -l as -d 'Username to impersonate, e.g. a controller\'s service account: `system:serviceaccount:NAMESPACE:NAME`' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -l as-group -d 'Group to impersonate (repeatable); needs --as' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -l as-uid -d 'UID to impersonate; needs --as' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -l certificate-authority -d 'Path to a certificate file for the certificate authority (overrides the kubeconfig\'s)' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -l client-certificate -d 'Path to a client certificate file for TLS' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -l client-key -d 'Path to a client key file for TLS' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -l insecure-skip-tls-verify -d 'Do not check the server\'s certificate: the connection is then open to interception' -r -f -a "true\t''
false\t''"
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -l tls-server-name -d 'Server name to check the server\'s certificate against (default: the host of the server\'s address)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -l disable-compression -d 'Do not ask the server to gzip its responses (as the kubeconfig\'s `disable-compression`)' -r -f -a "true\t''
false\t''"
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -l follow-owned -d 'Also tail what the named object owns, transitively: every object whose ownerReferences point to it or to an object it owns (a Deployment\'s ReplicaSets and their Pods), as they appear and go, in one stream'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -l no-bookmarks -d 'Do not request or print BOOKMARK events'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -l no-reconnect -d 'Exit when the server closes the watch (0 on a normal close, 2 on an error) instead of re-opening it from the last resourceVersion'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -l diff -d 'Print each MODIFIED as a unified diff of the object (as YAML) against its previous version; with -o json, each MODIFIED gains `patch`, the JSON Patch (RFC 6902) between them. metadata.resourceVersion, managedFields and generation are left out (see --diff-all)'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -l diff-all -d '--diff with every field compared, those three included: the patch turns the previous object into the new one exactly'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -l metadata-only -d 'Watch metadata only (PartialObjectMetadata): much less data for large objects'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -l show-secret-data -d 'Print the values of Secret `data` and `stringData` (redacted by default)'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -l stats -d 'Print a summary on stderr at exit (on by default when stderr is a terminal)'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -l show-managed-fields -d 'With -o yaml: keep metadata.managedFields, which are left out as kubectl leaves them out'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -s w -l watch -d 'kubectl\'s `get -w`, taken so that it can be answered: tail always watches'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -l watch-only -d 'kubectl\'s `get --watch-only`, taken so that it can be answered: `--initial none`'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -s A -l all-namespaces -d 'Work across all namespaces'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand tail" -s V -l version -d 'Print version'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand diff" -s l -l selector -d 'Label selector, e.g. `app=web`' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand diff" -l field-selector -d 'Field selector, e.g. `metadata.name=foo`' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand diff" -l initial -d 'How the informer gets its initial state: `watch-list`, as client-go v1.35 and later do (one consistent WATCH that streams it; falls back to `list` where the server refuses it), or `list`' -r -f -a "list\t'Paginated LIST, then WATCH'
watch-list\t'One WATCH with sendInitialEvents (falls back to `list` when refused)'"
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand diff" -l initial-events-timeout -d 'With --initial watch-list: how long the end of the initial events (the k8s.io/initial-events-end bookmark) may take after the watch opened or the last initial event, before falling back to LIST + WATCH (default 10s)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand diff" -l settle -d 'Keep the informer watching this long (with its reconnects and relists) before comparing' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand diff" -l every -d 'Compare again at this interval while the informer keeps running (a drift watchdog); stop with Ctrl-C or --for' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand diff" -l for -d 'With --every: how long the watchdog runs, e.g. `1h` (exit 0 or 1 by its last comparison)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand diff" -l timeout -d 'Give up when the comparison (sync, --settle, compare) has not finished within DURATION: stop and exit 124. Not with --every, which has no end: use --for' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand diff" -l chunk-size -d 'Objects per LIST page' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand diff" -l cache-file -d 'Compare a saved cache (JSON Lines in tail\'s recording format) with a LIST taken now, instead of running an informer' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand diff" -l save-cache -d 'Write the informer\'s cache to FILE (tail\'s recording format) once synced. FILE must not exist yet' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand diff" -l encoding -d 'The encoding to LIST and WATCH in: `protobuf` (kube-apiserver\'s built-in types; custom resources, which it does not serve in protobuf, are read in JSON), `json`, or `cbor` (where the server serves CBOR, else JSON). Default: protobuf, or JSON where objects are shown or recorded (--show-fields, --save-cache, --cache-file)' -r -f -a "protobuf\t'Kubernetes\' protobuf, where the server offers it (built-in types), else JSON'
json\t'JSON'
cbor\t'CBOR, where the server offers it (kube-apiserver with its alpha CBORServingAndStorage gate on), else JSON'"
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand diff" -s o -l output -d 'Output format' -r -f -a "text\t'For people: a table and a verdict'
json\t'One JSON document (diff: one per line with --every)'"
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand diff" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand diff" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand diff" -l cluster -d 'The kubeconfig cluster to use (overrides the context\'s)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand diff" -l user -d 'The kubeconfig user to use (overrides the context\'s)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand diff" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace, else `default`)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand diff" -l request-timeout -d 'Time limit for each non-watch request, e.g. `5s`, `1m`, and for any request\'s response headers (0: no limit, like kubectl); without it, response headers are waited for 60s' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand diff" -l health-check -d 'Check a connection that has received nothing for this long, e.g. `30s` (0: never): an HTTP/2 PING whose answer is due within 15 s, as client-go does; on HTTP/1.1, TCP keep-alive probes. A dead peer is then noticed within this plus 15 s, and a response body that stops for as long is abandoned. Costs one 17-byte PING and its answer per quiet connection per period' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand diff" -s v -l v -d 'Log level on stderr, as kubectl\'s: -v=1 (up to 5) the context, server, user and resolved resource; -v=6 and up also every request with its status and time' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand diff" -s s -l server -d 'The address and port of the API server, e.g. `https://10.0.0.1:6443` (overrides the kubeconfig\'s cluster; `https://` is assumed without a scheme)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand diff" -l token -d 'Bearer token for authentication to the API server (overrides the kubeconfig user\'s credentials). Prefer a kubeconfig: a flag\'s value is visible to other local users in `ps`' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand diff" -l as -d 'Username to impersonate, e.g. a controller\'s service account: `system:serviceaccount:NAMESPACE:NAME`' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand diff" -l as-group -d 'Group to impersonate (repeatable); needs --as' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand diff" -l as-uid -d 'UID to impersonate; needs --as' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand diff" -l certificate-authority -d 'Path to a certificate file for the certificate authority (overrides the kubeconfig\'s)' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand diff" -l client-certificate -d 'Path to a client certificate file for TLS' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand diff" -l client-key -d 'Path to a client key file for TLS' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand diff" -l insecure-skip-tls-verify -d 'Do not check the server\'s certificate: the connection is then open to interception' -r -f -a "true\t''
false\t''"
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand diff" -l tls-server-name -d 'Server name to check the server\'s certificate against (default: the host of the server\'s address)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand diff" -l disable-compression -d 'Do not ask the server to gzip its responses (as the kubeconfig\'s `disable-compression`)' -r -f -a "true\t''
false\t''"
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand diff" -l show-fields -d 'For stale and content drift, say which fields differ'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand diff" -l allow-empty -d 'Pass when there is nothing to compare (no object in the scope, or a namespace that does not exist); without it that exits 2, since a check of nothing is not a pass. With --every, the first comparison is checked'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand diff" -s A -l all-namespaces -d 'Work across all namespaces'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand diff" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand diff" -s V -l version -d 'Print version'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l from-file -d 'Replay a recording (tail\'s JSON Lines) offline instead of watching a cluster' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l speed -d 'Replay speed with --from-file: `max`, `1x` (the recorded spacing), `10x`' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l objects -d 'Objects the generator creates before the clock starts' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l rate -d 'Writes per second during the run (creates, updates, deletes): `100` or `100/s`' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l for -l duration -d 'How long the measured run lasts (after --warmup), e.g. `30s`, `5m`; live runs only [default: 30s]. `--duration` is its older name' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l warmup -d 'Time at the start excluded from the figures' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l template -d 'Make the load with objects of this manifest (YAML or JSON of one object of RESOURCE, a CRD\'s included): created with generated names, then only updated by --mutate' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l mutate -d 'With --template: the field each update sets, and how its values are made (`counter` or `random`), e.g. \'spec.template.metadata.annotations.rev=counter\' (default: an annotation of the pod template when there is one, else a label)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l react -d 'Measure a real controller\'s reaction to each write: `observed-generation`, `owned:RESOURCE` (e.g. owned:replicasets) or `condition:TYPE[=STATUS]` (e.g. condition:Available=True). With --template (bench\'s writes), or with --no-churn (observed-generation only: others\' writes, seen as generations going up)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l reaction-timeout -d 'With --react: a write with no reaction within this long counts in writesWithoutReaction' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l metrics-from -d 'Also read a running controller\'s own metrics over the window, and report its workqueues, informers (and their lag behind the server), client throttling and reconcilers: `KIND/NAME[:PORT][/PATH]` (deploy, sts, ds, rs, svc or pod: the leading replica, by port-forward) or an `https://` URL (with the kubeconfig\'s credentials). Scraped when the window opens, every second, and when it closes. Live runs only' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l metrics-namespace -d 'The namespace of --metrics-from\'s pod or service (default: -n\'s, else the context\'s)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l metrics-via -d 'How --metrics-from\'s KIND/NAME is reached: port-forward (HTTPS or HTTP, with a bearer token) or proxy (the API server\'s proxy to a pod or a service: plain HTTP, no credentials)' -r -f -a "port-forward\t'Through the API server\'s pods/portforward, as kubectl port-forward (needs create on pods/portforward): HTTPS or HTTP, with a bearer token'
proxy\t'Through the API server\'s proxy to a pod or a service, in plain HTTP and without credentials (needs get on pods/proxy or services/proxy)'"
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l metrics-token-from -d 'Scrape --metrics-from with a token of this service account (sa/NAME, in its namespace), asked for with the TokenRequest API, instead of the kubeconfig user\'s; never printed' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l handlers -d 'Event handlers (informer listeners), each with its own pending buffer' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l handler-time -d 'How long each handler takes: `2ms`, `exp:2ms` (exponential, mean 2ms), `uniform:1ms..5ms`. The handler sleeps without using the CPU, like one waiting on I/O' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l workers -d 'Workers draining the workqueue' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l work-time -d 'How long each work item takes (same forms as --handler-time)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l error-rate -d 'Percentage of work items that fail and are re-queued rate-limited (client-go\'s default controller rate limiter), e.g. `5`' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l resync -d 'Resync period of every handler, e.g. `30s` (default: none)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l seed -d 'Seed of the handler, work and load draws (the same seed repeats a run\'s choices)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l fail-if -d 'Fail (exit 1) when EXPR holds, e.g. \'queueDuration.p99 > 50ms\'. Repeatable' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l baseline -d 'An earlier --export-json to compare with: a latency figure (p50, p90, p99, mean) that got worse by more than --tolerance fails the run' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l tolerance -d 'Allowed worsening against --baseline, in percent' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l export-json -d 'Write the report as JSON (schema: `kubectl informer schema`) to FILE' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l export-markdown -d 'Write the figures as Markdown tables with Mermaid charts of backlog, depth and latency (for a pull-request comment or a job summary) to FILE' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l export-html -d 'Write the figures as one self-contained HTML page (tables and SVG charts, nothing fetched) to FILE' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l export-prometheus -d 'Write the metrics in Prometheus text format, with client-go\'s workqueue_* names, to FILE' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l encoding -d 'The encoding to LIST and WATCH in: `protobuf` (kube-apiserver\'s built-in types; custom resources, which it does not serve in protobuf, are read in JSON), `json`, or `cbor` (where the server serves CBOR, else JSON). Default: protobuf, or JSON with --react, whose reactions are read from the objects\' JSON' -r -f -a "protobuf\t'Kubernetes\' protobuf, where the server offers it (built-in types), else JSON'
json\t'JSON'
cbor\t'CBOR, where the server offers it (kube-apiserver with its alpha CBORServingAndStorage gate on), else JSON'"
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -s o -l output -d 'Output format on stdout: the table, or the report\'s JSON document (as --export-json)' -r -f -a "text\t'For people: a table and a verdict'
json\t'One JSON document (diff: one per line with --every)'"
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l cluster -d 'The kubeconfig cluster to use (overrides the context\'s)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l user -d 'The kubeconfig user to use (overrides the context\'s)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace, else `default`)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l request-timeout -d 'Time limit for each non-watch request, e.g. `5s`, `1m`, and for any request\'s response headers (0: no limit, like kubectl); without it, response headers are waited for 60s' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l health-check -d 'Check a connection that has received nothing for this long, e.g. `30s` (0: never): an HTTP/2 PING whose answer is due within 15 s, as client-go does; on HTTP/1.1, TCP keep-alive probes. A dead peer is then noticed within this plus 15 s, and a response body that stops for as long is abandoned. Costs one 17-byte PING and its answer per quiet connection per period' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -s v -l v -d 'Log level on stderr, as kubectl\'s: -v=1 (up to 5) the context, server, user and resolved resource; -v=6 and up also every request with its status and time' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -s s -l server -d 'The address and port of the API server, e.g. `https://10.0.0.1:6443` (overrides the kubeconfig\'s cluster; `https://` is assumed without a scheme)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l token -d 'Bearer token for authentication to the API server (overrides the kubeconfig user\'s credentials). Prefer a kubeconfig: a flag\'s value is visible to other local users in `ps`' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l as -d 'Username to impersonate, e.g. a controller\'s service account: `system:serviceaccount:NAMESPACE:NAME`' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l as-group -d 'Group to impersonate (repeatable); needs --as' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l as-uid -d 'UID to impersonate; needs --as' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l certificate-authority -d 'Path to a certificate file for the certificate authority (overrides the kubeconfig\'s)' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l client-certificate -d 'Path to a client certificate file for TLS' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l client-key -d 'Path to a client key file for TLS' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l insecure-skip-tls-verify -d 'Do not check the server\'s certificate: the connection is then open to interception' -r -f -a "true\t''
false\t''"
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l tls-server-name -d 'Server name to check the server\'s certificate against (default: the host of the server\'s address)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l disable-compression -d 'Do not ask the server to gzip its responses (as the kubeconfig\'s `disable-compression`)' -r -f -a "true\t''
false\t''"
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l no-churn -d 'Make no load: measure the traffic of an existing namespace (-n) or of all (-A). Without it, the load goes into a scratch namespace bench creates and deletes, or with -n into that namespace, each object labelled with the run and deleted at the end'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -l allow-empty -d 'With --no-churn: measure a namespace that does not exist (yet), whose traffic starts when it is created; without it that exits 2, since a measure of nothing is not a pass'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -s A -l all-namespaces -d 'Work across all namespaces'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand bench" -s V -l version -d 'Print version'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand conform" -l template -d 'A manifest (YAML or JSON) of one object of RESOURCE, which conform creates copies of: needed to write any resource but configmaps' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand conform" -l initial-events-timeout -d 'Check 7: how long the end of the initial events may take after the watch opened or the last initial event' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand conform" -l delivery-limit -d 'Check 10: how soon a write\'s event must arrive (a proxy that buffers the stream delivers it when its buffer fills or a timer fires)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand conform" -s o -l output -d 'Output format' -r -f -a "text\t'For people: a table and a verdict'
json\t'One JSON document (diff: one per line with --every)'"
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand conform" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand conform" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand conform" -l cluster -d 'The kubeconfig cluster to use (overrides the context\'s)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand conform" -l user -d 'The kubeconfig user to use (overrides the context\'s)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand conform" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace, else `default`)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand conform" -l request-timeout -d 'Time limit for each non-watch request, e.g. `5s`, `1m`, and for any request\'s response headers (0: no limit, like kubectl); without it, response headers are waited for 60s' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand conform" -l health-check -d 'Check a connection that has received nothing for this long, e.g. `30s` (0: never): an HTTP/2 PING whose answer is due within 15 s, as client-go does; on HTTP/1.1, TCP keep-alive probes. A dead peer is then noticed within this plus 15 s, and a response body that stops for as long is abandoned. Costs one 17-byte PING and its answer per quiet connection per period' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand conform" -s v -l v -d 'Log level on stderr, as kubectl\'s: -v=1 (up to 5) the context, server, user and resolved resource; -v=6 and up also every request with its status and time' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand conform" -s s -l server -d 'The address and port of the API server, e.g. `https://10.0.0.1:6443` (overrides the kubeconfig\'s cluster; `https://` is assumed without a scheme)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand conform" -l token -d 'Bearer token for authentication to the API server (overrides the kubeconfig user\'s credentials). Prefer a kubeconfig: a flag\'s value is visible to other local users in `ps`' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand conform" -l as -d 'Username to impersonate, e.g. a controller\'s service account: `system:serviceaccount:NAMESPACE:NAME`' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand conform" -l as-group -d 'Group to impersonate (repeatable); needs --as' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand conform" -l as-uid -d 'UID to impersonate; needs --as' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand conform" -l certificate-authority -d 'Path to a certificate file for the certificate authority (overrides the kubeconfig\'s)' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand conform" -l client-certificate -d 'Path to a client certificate file for TLS' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand conform" -l client-key -d 'Path to a client key file for TLS' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand conform" -l insecure-skip-tls-verify -d 'Do not check the server\'s certificate: the connection is then open to interception' -r -f -a "true\t''
false\t''"
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand conform" -l tls-server-name -d 'Server name to check the server\'s certificate against (default: the host of the server\'s address)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand conform" -l disable-compression -d 'Do not ask the server to gzip its responses (as the kubeconfig\'s `disable-compression`)' -r -f -a "true\t''
false\t''"
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand conform" -l read-only -d 'Write nothing: the checks run on the namespace of -n (or the context\'s) and those that need a write are SKIP. Without it conform writes only objects of its own: in a scratch namespace it creates and deletes, or with -n in that namespace, labelled with the run and deleted at the end'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand conform" -l allow-skips -d 'Skips are expected: a check skipped because the identity may not make its requests or --read-only writes nothing does not fail the run. A run in which no watch check ran still exits 2 (nothing checked)'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand conform" -s A -l all-namespaces -d 'Work across all namespaces'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand conform" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand conform" -s V -l version -d 'Print version'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand top" -l via -d 'How KIND/NAME is reached: port-forward (HTTPS or HTTP, with a bearer token) or proxy (the API server\'s proxy to a pod or a service: plain HTTP, no credentials)' -r -f -a "port-forward\t'Through the API server\'s pods/portforward, as kubectl port-forward (needs create on pods/portforward): HTTPS or HTTP, with a bearer token'
proxy\t'Through the API server\'s proxy to a pod or a service, in plain HTTP and without credentials (needs get on pods/proxy or services/proxy)'"
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand top" -l metrics-token-from -d 'Scrape with a token of this service account (sa/NAME, in the namespace of the target), asked for with the TokenRequest API (needs create on serviceaccounts/token), instead of the kubeconfig user\'s; never printed' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand top" -l interval -d 'Time between two scrapes: each table is of what happened in between' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand top" -l for -d 'Stop after this long and print the summary (default: until Ctrl-C)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand top" -s o -l output -d '`text`: a table per interval (redrawn in place on a terminal); `json`: one JSON line per interval, then the summary\'s' -r -f -a "text\t'For people: a table and a verdict'
json\t'One JSON document (diff: one per line with --every)'"
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand top" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand top" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand top" -l cluster -d 'The kubeconfig cluster to use (overrides the context\'s)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand top" -l user -d 'The kubeconfig user to use (overrides the context\'s)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand top" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace, else `default`)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand top" -l request-timeout -d 'Time limit for each non-watch request, e.g. `5s`, `1m`, and for any request\'s response headers (0: no limit, like kubectl); without it, response headers are waited for 60s' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand top" -l health-check -d 'Check a connection that has received nothing for this long, e.g. `30s` (0: never): an HTTP/2 PING whose answer is due within 15 s, as client-go does; on HTTP/1.1, TCP keep-alive probes. A dead peer is then noticed within this plus 15 s, and a response body that stops for as long is abandoned. Costs one 17-byte PING and its answer per quiet connection per period' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand top" -s v -l v -d 'Log level on stderr, as kubectl\'s: -v=1 (up to 5) the context, server, user and resolved resource; -v=6 and up also every request with its status and time' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand top" -s s -l server -d 'The address and port of the API server, e.g. `https://10.0.0.1:6443` (overrides the kubeconfig\'s cluster; `https://` is assumed without a scheme)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand top" -l token -d 'Bearer token for authentication to the API server (overrides the kubeconfig user\'s credentials). Prefer a kubeconfig: a flag\'s value is visible to other local users in `ps`' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand top" -l as -d 'Username to impersonate, e.g. a controller\'s service account: `system:serviceaccount:NAMESPACE:NAME`' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand top" -l as-group -d 'Group to impersonate (repeatable); needs --as' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand top" -l as-uid -d 'UID to impersonate; needs --as' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand top" -l certificate-authority -d 'Path to a certificate file for the certificate authority (overrides the kubeconfig\'s)' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand top" -l client-certificate -d 'Path to a client certificate file for TLS' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand top" -l client-key -d 'Path to a client key file for TLS' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand top" -l insecure-skip-tls-verify -d 'Do not check the server\'s certificate: the connection is then open to interception' -r -f -a "true\t''
false\t''"
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand top" -l tls-server-name -d 'Server name to check the server\'s certificate against (default: the host of the server\'s address)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand top" -l disable-compression -d 'Do not ask the server to gzip its responses (as the kubeconfig\'s `disable-compression`)' -r -f -a "true\t''
false\t''"
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand top" -l all-replicas -d 'Scrape every running replica of KIND/NAME, not only the leader: one table (or JSON line) per replica and interval, marked leader or follower, so that an idle leader or a busy follower stands out. The replicas are listed again each interval'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand top" -l lag -d 'Measure each informer\'s lag behind the server: watch each resource the controller\'s informers hold (metadata only, from now on, across all namespaces) and compare each event with the resourceVersion the informer\'s store reached. Needs list and watch on those resources'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand top" -l all -d 'Show every queue and informer, the idle ones too (no depth, nothing added, nothing processed in the interval)'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand top" -s A -l all-namespaces -d 'Work across all namespaces'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand top" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand top" -s V -l version -d 'Print version'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand proxy" -s p -l port -d 'The port on 127.0.0.1 to serve on; 0 picks a free one (the line on stdout says which)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand proxy" -l write-kubeconfig -d 'Write a kubeconfig that reaches the cluster through the proxy to FILE: its address and, over HTTPS, the proxy\'s certificate authority; no credential (the proxy adds yours). FILE must not exist yet' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand proxy" -l fault -d 'Put a fault in front of the clients (repeatable): KIND[:OPTION=VALUE,...], one of the faults listed above (and in docs/proxy.md). Each one applied is a NOTICE line on stderr (with -o json, a line on stdout)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand proxy" -l seed -d 'Seed of the faults\' draws (share=, every=D1-D2); the same seed repeats a run\'s choices. Default: one from the clock, said in the first line' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand proxy" -s o -l output -d '`text`: the faults applied as NOTICE lines on stderr; `json`: one JSON line per fault applied on stdout, after a line saying where the proxy serves, and a summary line at the end' -r -f -a "text\t'For people: a table and a verdict'
json\t'One JSON document (diff: one per line with --every)'"
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand proxy" -l for -d 'Stop after this long (default: until Ctrl-C)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand proxy" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand proxy" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand proxy" -l cluster -d 'The kubeconfig cluster to use (overrides the context\'s)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand proxy" -l user -d 'The kubeconfig user to use (overrides the context\'s)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand proxy" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace, else `default`)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand proxy" -l request-timeout -d 'Time limit for each non-watch request, e.g. `5s`, `1m`, and for any request\'s response headers (0: no limit, like kubectl); without it, response headers are waited for 60s' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand proxy" -l health-check -d 'Check a connection that has received nothing for this long, e.g. `30s` (0: never): an HTTP/2 PING whose answer is due within 15 s, as client-go does; on HTTP/1.1, TCP keep-alive probes. A dead peer is then noticed within this plus 15 s, and a response body that stops for as long is abandoned. Costs one 17-byte PING and its answer per quiet connection per period' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand proxy" -s v -l v -d 'Log level on stderr, as kubectl\'s: -v=1 (up to 5) the context, server, user and resolved resource; -v=6 and up also every request with its status and time' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand proxy" -s s -l server -d 'The address and port of the API server, e.g. `https://10.0.0.1:6443` (overrides the kubeconfig\'s cluster; `https://` is assumed without a scheme)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand proxy" -l token -d 'Bearer token for authentication to the API server (overrides the kubeconfig user\'s credentials). Prefer a kubeconfig: a flag\'s value is visible to other local users in `ps`' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand proxy" -l as -d 'Username to impersonate, e.g. a controller\'s service account: `system:serviceaccount:NAMESPACE:NAME`' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand proxy" -l as-group -d 'Group to impersonate (repeatable); needs --as' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand proxy" -l as-uid -d 'UID to impersonate; needs --as' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand proxy" -l certificate-authority -d 'Path to a certificate file for the certificate authority (overrides the kubeconfig\'s)' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand proxy" -l client-certificate -d 'Path to a client certificate file for TLS' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand proxy" -l client-key -d 'Path to a client key file for TLS' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand proxy" -l insecure-skip-tls-verify -d 'Do not check the server\'s certificate: the connection is then open to interception' -r -f -a "true\t''
false\t''"
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand proxy" -l tls-server-name -d 'Server name to check the server\'s certificate against (default: the host of the server\'s address)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand proxy" -l disable-compression -d 'Do not ask the server to gzip its responses (as the kubeconfig\'s `disable-compression`)' -r -f -a "true\t''
false\t''"
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand proxy" -l plain-http -d 'Serve plain HTTP/1.1, as kubectl proxy does, instead of HTTPS with HTTP/2 (with a certificate authority of the proxy\'s own, made for this run). A client then has no HTTP/2 health check: client-go notices a connection that went silent only over HTTP/2'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand proxy" -s A -l all-namespaces -d 'Work across all namespaces'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand proxy" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand proxy" -s V -l version -d 'Print version'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand completion" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand completion" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand completion" -l cluster -d 'The kubeconfig cluster to use (overrides the context\'s)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand completion" -l user -d 'The kubeconfig user to use (overrides the context\'s)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand completion" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace, else `default`)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand completion" -l request-timeout -d 'Time limit for each non-watch request, e.g. `5s`, `1m`, and for any request\'s response headers (0: no limit, like kubectl); without it, response headers are waited for 60s' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand completion" -l health-check -d 'Check a connection that has received nothing for this long, e.g. `30s` (0: never): an HTTP/2 PING whose answer is due within 15 s, as client-go does; on HTTP/1.1, TCP keep-alive probes. A dead peer is then noticed within this plus 15 s, and a response body that stops for as long is abandoned. Costs one 17-byte PING and its answer per quiet connection per period' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand completion" -s v -l v -d 'Log level on stderr, as kubectl\'s: -v=1 (up to 5) the context, server, user and resolved resource; -v=6 and up also every request with its status and time' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand completion" -s s -l server -d 'The address and port of the API server, e.g. `https://10.0.0.1:6443` (overrides the kubeconfig\'s cluster; `https://` is assumed without a scheme)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand completion" -l token -d 'Bearer token for authentication to the API server (overrides the kubeconfig user\'s credentials). Prefer a kubeconfig: a flag\'s value is visible to other local users in `ps`' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand completion" -l as -d 'Username to impersonate, e.g. a controller\'s service account: `system:serviceaccount:NAMESPACE:NAME`' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand completion" -l as-group -d 'Group to impersonate (repeatable); needs --as' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand completion" -l as-uid -d 'UID to impersonate; needs --as' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand completion" -l certificate-authority -d 'Path to a certificate file for the certificate authority (overrides the kubeconfig\'s)' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand completion" -l client-certificate -d 'Path to a client certificate file for TLS' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand completion" -l client-key -d 'Path to a client key file for TLS' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand completion" -l insecure-skip-tls-verify -d 'Do not check the server\'s certificate: the connection is then open to interception' -r -f -a "true\t''
false\t''"
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand completion" -l tls-server-name -d 'Server name to check the server\'s certificate against (default: the host of the server\'s address)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand completion" -l disable-compression -d 'Do not ask the server to gzip its responses (as the kubeconfig\'s `disable-compression`)' -r -f -a "true\t''
false\t''"
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand completion" -s A -l all-namespaces -d 'Work across all namespaces'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand completion" -s h -l help -d 'Print help'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand completion" -s V -l version -d 'Print version'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand version" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand version" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand version" -l cluster -d 'The kubeconfig cluster to use (overrides the context\'s)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand version" -l user -d 'The kubeconfig user to use (overrides the context\'s)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand version" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace, else `default`)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand version" -l request-timeout -d 'Time limit for each non-watch request, e.g. `5s`, `1m`, and for any request\'s response headers (0: no limit, like kubectl); without it, response headers are waited for 60s' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand version" -l health-check -d 'Check a connection that has received nothing for this long, e.g. `30s` (0: never): an HTTP/2 PING whose answer is due within 15 s, as client-go does; on HTTP/1.1, TCP keep-alive probes. A dead peer is then noticed within this plus 15 s, and a response body that stops for as long is abandoned. Costs one 17-byte PING and its answer per quiet connection per period' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand version" -s v -l v -d 'Log level on stderr, as kubectl\'s: -v=1 (up to 5) the context, server, user and resolved resource; -v=6 and up also every request with its status and time' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand version" -s s -l server -d 'The address and port of the API server, e.g. `https://10.0.0.1:6443` (overrides the kubeconfig\'s cluster; `https://` is assumed without a scheme)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand version" -l token -d 'Bearer token for authentication to the API server (overrides the kubeconfig user\'s credentials). Prefer a kubeconfig: a flag\'s value is visible to other local users in `ps`' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand version" -l as -d 'Username to impersonate, e.g. a controller\'s service account: `system:serviceaccount:NAMESPACE:NAME`' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand version" -l as-group -d 'Group to impersonate (repeatable); needs --as' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand version" -l as-uid -d 'UID to impersonate; needs --as' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand version" -l certificate-authority -d 'Path to a certificate file for the certificate authority (overrides the kubeconfig\'s)' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand version" -l client-certificate -d 'Path to a client certificate file for TLS' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand version" -l client-key -d 'Path to a client key file for TLS' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand version" -l insecure-skip-tls-verify -d 'Do not check the server\'s certificate: the connection is then open to interception' -r -f -a "true\t''
false\t''"
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand version" -l tls-server-name -d 'Server name to check the server\'s certificate against (default: the host of the server\'s address)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand version" -l disable-compression -d 'Do not ask the server to gzip its responses (as the kubeconfig\'s `disable-compression`)' -r -f -a "true\t''
false\t''"
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand version" -l client -d 'Print the client\'s version only, without asking the server'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand version" -s A -l all-namespaces -d 'Work across all namespaces'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand version" -s h -l help -d 'Print help'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand version" -s V -l version -d 'Print version'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand options" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand options" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand options" -l cluster -d 'The kubeconfig cluster to use (overrides the context\'s)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand options" -l user -d 'The kubeconfig user to use (overrides the context\'s)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand options" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace, else `default`)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand options" -l request-timeout -d 'Time limit for each non-watch request, e.g. `5s`, `1m`, and for any request\'s response headers (0: no limit, like kubectl); without it, response headers are waited for 60s' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand options" -l health-check -d 'Check a connection that has received nothing for this long, e.g. `30s` (0: never): an HTTP/2 PING whose answer is due within 15 s, as client-go does; on HTTP/1.1, TCP keep-alive probes. A dead peer is then noticed within this plus 15 s, and a response body that stops for as long is abandoned. Costs one 17-byte PING and its answer per quiet connection per period' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand options" -s v -l v -d 'Log level on stderr, as kubectl\'s: -v=1 (up to 5) the context, server, user and resolved resource; -v=6 and up also every request with its status and time' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand options" -s s -l server -d 'The address and port of the API server, e.g. `https://10.0.0.1:6443` (overrides the kubeconfig\'s cluster; `https://` is assumed without a scheme)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand options" -l token -d 'Bearer token for authentication to the API server (overrides the kubeconfig user\'s credentials). Prefer a kubeconfig: a flag\'s value is visible to other local users in `ps`' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand options" -l as -d 'Username to impersonate, e.g. a controller\'s service account: `system:serviceaccount:NAMESPACE:NAME`' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand options" -l as-group -d 'Group to impersonate (repeatable); needs --as' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand options" -l as-uid -d 'UID to impersonate; needs --as' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand options" -l certificate-authority -d 'Path to a certificate file for the certificate authority (overrides the kubeconfig\'s)' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand options" -l client-certificate -d 'Path to a client certificate file for TLS' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand options" -l client-key -d 'Path to a client key file for TLS' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand options" -l insecure-skip-tls-verify -d 'Do not check the server\'s certificate: the connection is then open to interception' -r -f -a "true\t''
false\t''"
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand options" -l tls-server-name -d 'Server name to check the server\'s certificate against (default: the host of the server\'s address)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand options" -l disable-compression -d 'Do not ask the server to gzip its responses (as the kubeconfig\'s `disable-compression`)' -r -f -a "true\t''
false\t''"
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand options" -s A -l all-namespaces -d 'Work across all namespaces'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand options" -s h -l help -d 'Print help'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand options" -s V -l version -d 'Print version'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand schema" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand schema" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand schema" -l cluster -d 'The kubeconfig cluster to use (overrides the context\'s)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand schema" -l user -d 'The kubeconfig user to use (overrides the context\'s)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand schema" -s n -l namespace -d 'Namespace to work in (default: the context\'s namespace, else `default`)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand schema" -l request-timeout -d 'Time limit for each non-watch request, e.g. `5s`, `1m`, and for any request\'s response headers (0: no limit, like kubectl); without it, response headers are waited for 60s' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand schema" -l health-check -d 'Check a connection that has received nothing for this long, e.g. `30s` (0: never): an HTTP/2 PING whose answer is due within 15 s, as client-go does; on HTTP/1.1, TCP keep-alive probes. A dead peer is then noticed within this plus 15 s, and a response body that stops for as long is abandoned. Costs one 17-byte PING and its answer per quiet connection per period' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand schema" -s v -l v -d 'Log level on stderr, as kubectl\'s: -v=1 (up to 5) the context, server, user and resolved resource; -v=6 and up also every request with its status and time' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand schema" -s s -l server -d 'The address and port of the API server, e.g. `https://10.0.0.1:6443` (overrides the kubeconfig\'s cluster; `https://` is assumed without a scheme)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand schema" -l token -d 'Bearer token for authentication to the API server (overrides the kubeconfig user\'s credentials). Prefer a kubeconfig: a flag\'s value is visible to other local users in `ps`' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand schema" -l as -d 'Username to impersonate, e.g. a controller\'s service account: `system:serviceaccount:NAMESPACE:NAME`' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand schema" -l as-group -d 'Group to impersonate (repeatable); needs --as' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand schema" -l as-uid -d 'UID to impersonate; needs --as' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand schema" -l certificate-authority -d 'Path to a certificate file for the certificate authority (overrides the kubeconfig\'s)' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand schema" -l client-certificate -d 'Path to a client certificate file for TLS' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand schema" -l client-key -d 'Path to a client key file for TLS' -r -F
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand schema" -l insecure-skip-tls-verify -d 'Do not check the server\'s certificate: the connection is then open to interception' -r -f -a "true\t''
false\t''"
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand schema" -l tls-server-name -d 'Server name to check the server\'s certificate against (default: the host of the server\'s address)' -r
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand schema" -l disable-compression -d 'Do not ask the server to gzip its responses (as the kubeconfig\'s `disable-compression`)' -r -f -a "true\t''
false\t''"
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand schema" -s A -l all-namespaces -d 'Work across all namespaces'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand schema" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand schema" -s V -l version -d 'Print version'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand help; and not __fish_seen_subcommand_from tail diff bench conform top proxy completion version options schema help" -f -a "tail" -d 'Stream the watch events of a resource with their resourceVersions and bookmarks'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand help; and not __fish_seen_subcommand_from tail diff bench conform top proxy completion version options schema help" -f -a "diff" -d 'Compare an informer cache with a fresh LIST at one resourceVersion and report drift'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand help; and not __fish_seen_subcommand_from tail diff bench conform top proxy completion version options schema help" -f -a "bench" -d 'Measure event-handler backlog and workqueue latency under load, with percentiles and pass/fail gates for CI'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand help; and not __fish_seen_subcommand_from tail diff bench conform top proxy completion version options schema help" -f -a "conform" -d 'Check that a server (or a proxy in front of it) keeps the watch contract informers rely on, one line per check'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand help; and not __fish_seen_subcommand_from tail diff bench conform top proxy completion version options schema help" -f -a "top" -d 'A running controller\'s own workqueues, informers and client throttling, from its metrics endpoint, refreshed every interval like kubectl top'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand help; and not __fish_seen_subcommand_from tail diff bench conform top proxy completion version options schema help" -f -a "proxy" -d 'Serve the cluster\'s API on a loopback port with your credentials, over HTTPS and HTTP/2 (as kube-apiserver does), for a controller to be started against'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand help; and not __fish_seen_subcommand_from tail diff bench conform top proxy completion version options schema help" -f -a "completion" -d 'Print a shell completion script'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand help; and not __fish_seen_subcommand_from tail diff bench conform top proxy completion version options schema help" -f -a "version" -d 'Print the client\'s version and commit, and the server\'s version (as `kubectl version`)'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand help; and not __fish_seen_subcommand_from tail diff bench conform top proxy completion version options schema help" -f -a "options" -d 'Print the global options, which every command takes (as `kubectl options`)'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand help; and not __fish_seen_subcommand_from tail diff bench conform top proxy completion version options schema help" -f -a "schema" -d 'Print the documentation of the JSON outputs (tail\'s JSON Lines, diff\'s, bench\'s and conform\'s reports), or one document\'s JSON Schema'
complete -c kubectl-informer -n "__fish_kubectl_informer_using_subcommand help; and not __fish_seen_subcommand_from tail diff bench conform top proxy completion version options schema help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
