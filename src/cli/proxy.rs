//! `proxy`'s command line ([`ProxyArgs`]).

use crate::cli::ReportFormat;
use crate::duration;
use crate::proxy::fault::Fault;
use clap::Args;
use std::path::PathBuf;
use std::time::Duration;

/// `kubectl informer proxy`.
#[derive(Debug, Clone, Args)]
#[command(before_help = "Examples:\n  \
    # The API of the current context on https://127.0.0.1:8001, and a kubeconfig to use it\n  \
    kubectl informer proxy --write-kubeconfig proxy.kubeconfig\n  \
    kube-controller-manager --kubeconfig proxy.kubeconfig ...\n\n  \
    # As kubectl proxy serves it: plain HTTP/1.1, any free port\n  \
    kubectl informer proxy --plain-http -p 0\n\n  \
    # Cut every watch every 5 to 20 s, and answer each resume with 410 Gone\n  \
    kubectl informer proxy --fault sever:every=5s-20s,how=end --fault gone\n\n  \
    # After 30 s, the connection carrying the deployments watch goes dead for 2 minutes\n  \
    kubectl informer proxy --fault silence:at=30s,for=2m,resource=deployments\n\n  \
    # 429 with Retry-After: 1 on a fifth of the LISTs and WATCHes, every LIST page 2 s late\n  \
    kubectl informer proxy --fault error:status=429,retry-after=1s,share=20% --fault slow-list:by=2s\n\n  \
    # Run the controller on the proxy (KUBECONFIG), killed right after its first create of a\n  \
    # ConfigMap is committed, before it sees the answer, and started again\n  \
    kubectl informer proxy --fault crash:after=create,resource=configmaps -- ./manager\n\n  \
    # A workload's end state, saved from a fault-free run, then compared under a crash (exit 1\n  \
    # when an object is missing, extra or other)\n  \
    kubectl informer proxy -n demo --workload ./workload.sh --state secrets,configmaps \\\n      \
      --save-state base.json -- ./manager\n  \
    kubectl informer proxy -n demo --workload ./workload.sh --state secrets,configmaps \\\n      \
      --fault crash:after=create,resource=secrets --compare-state base.json -- ./manager\n\n  \
    # The faults chosen from what the controller did, each run in a namespace of its own\n  \
    kubectl informer proxy -n demo --explore --workload ./workload.sh --state secrets \\\n      \
      -- ./manager '--namespace={namespace}'\n\n\
Faults (--fault KIND[:OPTION=VALUE,...]; D a duration; at=D once, every=D or every=D1-D2 \
again and again, from the start):\n  \
    sever:every=D|at=D[,how=reset|end]\n      \
    cut every open watch: reset (the default) is an HTTP/2 RST_STREAM or the HTTP/1.1\n      \
    connection dropped; end is a clean end, as at the server's timeout\n  \
    silence:every=D|at=D,for=D\n      \
    the connections carrying a watch stop: nothing read or written, HTTP/2 PINGs\n      \
    unanswered (a dead peer)\n  \
    stall:every=D|at=D,for=D\n      \
    open watches send nothing, then what they held\n  \
    refuse:every=D|at=D,for=D\n      \
    every connection closed, new ones refused (an API server restart)\n  \
    gone\n      \
    a watch that resumes where one of its resource ended is answered 410 Expired\n  \
    drop-bookmarks, drop-initial-events-end\n      \
    BOOKMARK events dropped: all, or the one that ends a watch-list's initial events\n  \
    delay:by=D\n      \
    every watch event sent D after it came\n  \
    error:status=CODE[,retry-after=D][,verb=VERB+VERB]\n      \
    requests answered CODE (verbs: get, list, watch, create, update, patch, delete;\n      \
    default list+watch)\n  \
    slow-list:by=D\n      \
    every LIST request (every page) answered D later\n  \
    coalesce:window=D\n      \
    an object's watch events within D of its first sent as one, the newest, typed as a\n      \
    relist shows the change (what a client that relisted, or was slow, sees)\n  \
    crash:after=VERB[+VERB][,nth=N]|every=D|at=D\n      \
    the controller started after -- killed with SIGKILL and started again: right after the\n      \
    server committed its Nth write (default 1) of those verbs (create, update, patch,\n      \
    delete), before it sees the answer; or at those moments\n  \
    stale:by=D[,on=restart][,at=D][,for=D]\n      \
    served as by an API server whose watch cache lags D: LISTs and watch-lists get the\n      \
    state of D ago, resumed watches replay from there, every watch event comes D after it\n      \
    happened; on=restart: only once a crash restarted the controller\n\
Every fault but refuse takes resource=NAME (as kubectl names it); gone, drop-*, delay, error and \
slow-list take share=P% (of the requests or watches in scope, drawn with --seed).\n\n\
Exit status: 0 --for ran out (with --workload: the end state is the baselines'), 1 the \
    controller started after -- exited by itself, or the end state differs from the baselines' \
    (a workload that failed where theirs succeeded too), 2 error (the port taken, the cluster \
    unreachable, a controller that cannot be started, a baseline's workload that failed), 130 interrupted by Ctrl-C, 143 by SIGTERM.")]
pub struct ProxyArgs {
    /// The port on 127.0.0.1 to serve on; 0 picks a free one (the line on stdout says which).
    #[arg(short = 'p', long, value_name = "PORT", default_value_t = 8001)]
    pub port: u16,
    /// Write a kubeconfig that reaches the cluster through the proxy to FILE: its address and,
    /// over HTTPS, the proxy's certificate authority; no credential (the proxy adds yours).
    /// FILE must not exist yet.
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub write_kubeconfig: Option<PathBuf>,
    /// Serve plain HTTP/1.1, as kubectl proxy does, instead of HTTPS with HTTP/2 (with a
    /// certificate authority of the proxy's own, made for this run). A client then has no
    /// HTTP/2 health check: client-go notices a connection that went silent only over HTTP/2.
    #[arg(long)]
    pub plain_http: bool,
    /// Put a fault in front of the clients (repeatable): KIND[:OPTION=VALUE,...], one of the
    /// faults listed above (and in docs/proxy.md). Each one applied is a NOTICE line on stderr
    /// (with -o json, a line on stdout).
    #[arg(long = "fault", value_name = "FAULT", value_parser = Fault::parse)]
    pub faults: Vec<Fault>,
    /// Seed of the faults' draws (share=, every=D1-D2); the same seed repeats a run's choices.
    /// Default: one from the clock, said in the first line.
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// `text`: the faults applied as NOTICE lines on stderr; `json`: one JSON line per fault
    /// applied on stdout, after a line saying where the proxy serves, and a summary line at the
    /// end.
    #[arg(short = 'o', long, value_enum, default_value_t = ReportFormat::Text)]
    pub output: ReportFormat,
    /// Stop after this long (default: until Ctrl-C).
    #[arg(long = "for", value_name = "DURATION", value_parser = duration::parse)]
    pub run_for: Option<Duration>,
    /// A workload to run once the proxy serves and the controller has started watching (a
    /// watch open, then no new watch or LIST for 1 s; at most --settle-limit): a shell
    /// command line (`sh -c`), on your kubeconfig (not the proxy's: it stands for the users of
    /// the cluster, not the controller; $KUBECTL_INFORMER_NAMESPACE is the namespace of -n),
    /// its output on stderr. When it has ended and the controller has made no write for
    /// --settle, the end state of --state is taken (saved with --save-state, compared with
    /// --compare-state) and the proxy stops.
    /// With --compare-state a workload that fails (what it waited for never came) is a
    /// difference, exit 1; with --save-state, or nothing to compare, it is exit 2.
    #[arg(long, value_name = "COMMAND")]
    pub workload: Option<String>,
    /// After the workload, take the end state once the controller has made no write for this
    /// long (the proxy sees each of its writes); under a stale view or a coalesce, counted from
    /// when the controller has been told of everything (the lag or window after the workload).
    #[arg(long, value_name = "DURATION", value_parser = duration::parse, default_value = "5s")]
    pub settle: Duration,
    /// Take the end state after this long even if the controller is still writing (said in the
    /// verdict).
    #[arg(long, value_name = "DURATION", value_parser = duration::parse, default_value = "2m")]
    pub settle_limit: Duration,
    /// Compare every field of the objects, not only those the controller manages (its field
    /// managers' entries in managedFields, learned from its writes): then what the scheduler,
    /// kwok, admission or the workload wrote is compared too.
    #[arg(long)]
    pub all_fields: bool,
    /// Leave this field (and what is below it) out of the comparison, as the verdict names it:
    /// `.spec.replicas`, `.metadata.annotations["x/count"]`, `.spec.containers[web].image`
    /// (repeatable).
    #[arg(long, value_name = "PATH")]
    pub ignore_field: Vec<String>,
    /// The resources whose end state is taken after the workload, in the namespace of -n (as
    /// kubectl names them, comma-separated: secrets,configmaps).
    #[arg(long, value_name = "RESOURCES", value_delimiter = ',')]
    pub state: Vec<String>,
    /// Save the end state (each object's fields the controller manages, normalized: no uids,
    /// resourceVersions, times or generated name suffixes) to FILE, a baseline for
    /// --compare-state. FILE must not exist.
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub save_state: Option<PathBuf>,
    /// Compare the end state with the one a fault-free run of the same workload saved
    /// (repeatable: what the baselines differ on is left out); any object missing, extra or
    /// with other content is a row of one table, and exit 1.
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub compare_state: Vec<PathBuf>,
    /// Explore without hints: run the workload twice without faults (the baselines), then once
    /// per fault their trace suggests (a crash right after each kind of write the controller
    /// made, a restart onto a stale view of each resource it watched, coalesced events on
    /// each), each in a namespace of its own named after -n (`{namespace}` in the controller's
    /// arguments is replaced with it), and report the runs whose end state differs, with the
    /// command that repeats each. Needs --workload and --state; exit 1 when one differs.
    #[arg(long)]
    pub explore: bool,
    /// With --explore: how many runs go side by side when the controller watches one namespace
    /// (`{namespace}` in its arguments); one at a time otherwise. Default: the machine's CPUs,
    /// at least 2, at most 4.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=64))]
    pub parallel: Option<u16>,
    /// With --explore: how far behind the stale views are (a run with one settles this much
    /// longer).
    #[arg(long, value_name = "DURATION", value_parser = duration::parse, default_value = "45s")]
    pub explore_lag: Duration,
    /// With --explore: how long a coalesce gathers an object's events (a run with one settles
    /// this much longer).
    #[arg(long, value_name = "DURATION", value_parser = duration::parse, default_value = "10s")]
    pub explore_window: Duration,
    /// The controller to run behind the proxy, after `--`: started once the proxy serves, with
    /// KUBECONFIG set to the proxy's kubeconfig (--write-kubeconfig's file, else one made for
    /// the run), its output on stderr; started again after a crash fault kills it; stopped
    /// with SIGTERM (SIGKILL 30 s later) when the proxy stops. Its exiting by itself stops the
    /// proxy with exit 1.
    #[arg(last = true, value_name = "CMD")]
    pub controller: Vec<String>,
}
