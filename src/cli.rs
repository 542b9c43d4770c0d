//! The command line as clap sees it: plain structs, validated later into each command's config.

use crate::informer::listwatch::DEFAULT_CHUNK_SIZE;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

mod unknown_flag;

/// Run a client-go style reflector and informer pipeline on demand: see every watch event,
/// bookmark, reconnect and relist of any resource.
#[derive(Debug, Parser)]
#[command(
    name = "kubectl-informer",
    bin_name = "kubectl informer",
    version = crate::VERSION,
    propagate_version = true,
    args_override_self = true,
    help_template = ROOT_HELP,
    after_help = GLOBAL_OPTIONS_HINT
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// kubectl's global flags, shared by every subcommand.
#[derive(Debug, Clone, Default, Args)]
#[command(next_help_heading = "Global options")]
pub struct GlobalArgs {
    /// Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config).
    #[arg(long, global = true, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub kubeconfig: Option<PathBuf>,
    /// The kubeconfig context to use.
    #[arg(long, global = true, value_name = "NAME")]
    pub context: Option<String>,
    /// The kubeconfig cluster to use (overrides the context's).
    #[arg(long, global = true, value_name = "NAME")]
    pub cluster: Option<String>,
    /// The kubeconfig user to use (overrides the context's).
    #[arg(long, global = true, value_name = "NAME")]
    pub user: Option<String>,
    /// Namespace to work in (default: the context's namespace, else `default`).
    #[arg(short = 'n', long, global = true, value_name = "NAME")]
    pub namespace: Option<String>,
    /// Work across all namespaces.
    #[arg(short = 'A', long, global = true)]
    pub all_namespaces: bool,
    /// Time limit for each non-watch request, e.g. `5s`, `1m` (0: no limit, like kubectl).
    #[arg(long, global = true, value_name = "DURATION", default_value = "0")]
    pub request_timeout: String,
    /// Check a connection that has received nothing for this long, e.g. `30s` (0: never): an
    /// HTTP/2 PING whose answer is due within 15 s, as client-go does; on HTTP/1.1, TCP
    /// keep-alive probes. A dead peer is then noticed within this plus 15 s, and a response
    /// body that stops for as long is abandoned. Costs one 17-byte PING and its answer per
    /// quiet connection per period.
    #[arg(long, global = true, value_name = "DURATION", default_value = "30s")]
    pub health_check: String,
    /// Log level on stderr, as kubectl's: -v=1 (up to 5) the context, server, user and resolved
    /// resource; -v=6 and up also every request with its status and time.
    #[arg(short = 'v', long = "v", global = true, value_name = "LEVEL", default_value = "0",
        value_parser = parse_level)]
    pub verbose: u8,
    /// The address and port of the API server, e.g. `https://10.0.0.1:6443` (overrides the
    /// kubeconfig's cluster; `https://` is assumed without a scheme).
    #[arg(short = 's', long, global = true, value_name = "URL")]
    pub server: Option<String>,
    /// Bearer token for authentication to the API server (overrides the kubeconfig user's
    /// credentials). Prefer a kubeconfig: a flag's value is visible to other local users in `ps`.
    #[arg(long, global = true, value_name = "TOKEN")]
    pub token: Option<String>,
    /// Username to impersonate, e.g. a controller's service account:
    /// `system:serviceaccount:NAMESPACE:NAME`.
    #[arg(long = "as", global = true, value_name = "USER")]
    pub impersonate: Option<String>,
    /// Group to impersonate (repeatable); needs --as.
    #[arg(long = "as-group", global = true, value_name = "GROUP")]
    pub impersonate_groups: Vec<String>,
    /// UID to impersonate; needs --as.
    #[arg(long = "as-uid", global = true, value_name = "UID")]
    pub impersonate_uid: Option<String>,
    /// Path to a certificate file for the certificate authority (overrides the kubeconfig's).
    #[arg(long, global = true, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub certificate_authority: Option<PathBuf>,
    /// Path to a client certificate file for TLS.
    #[arg(long, global = true, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub client_certificate: Option<PathBuf>,
    /// Path to a client key file for TLS.
    #[arg(long, global = true, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub client_key: Option<PathBuf>,
    /// Do not check the server's certificate: the connection is then open to interception.
    #[arg(long, global = true, value_name = "BOOL", num_args = 0..=1, require_equals = true,
        default_missing_value = "true", default_value = "false", value_parser = clap::value_parser!(bool))]
    pub insecure_skip_tls_verify: bool,
    /// Server name to check the server's certificate against (default: the host of the
    /// server's address).
    #[arg(long, global = true, value_name = "NAME")]
    pub tls_server_name: Option<String>,
    /// Do not ask the server to gzip its responses (as the kubeconfig's `disable-compression`).
    #[arg(long, global = true, value_name = "BOOL", num_args = 0..=1, require_equals = true,
        default_missing_value = "true", default_value = "false", value_parser = clap::value_parser!(bool))]
    pub disable_compression: bool,
}

/// A `-v` level as kubectl writes it (`-v=6`, `--v=6`, `-v 6`); `-vv` (an earlier spelling of
/// "every request") is read as 6.
fn parse_level(text: &str) -> Result<u8, String> {
    if !text.is_empty() && text.bytes().all(|b| b == b'v') {
        return Ok(crate::cluster::REQUEST_LEVEL);
    }
    text.parse::<u8>().map_err(|_| {
        format!("a log level is a number from 0 to 255, e.g. -v=6 (kubectl's), not \"{text}\"")
    })
}

/// The root's help: what it is, the commands, where the global options are (kubectl's layout).
const ROOT_HELP: &str =
    "{about-with-newline}\n{usage-heading} {usage}\n\nCommands:\n{subcommands}\n\n{after-help}";

/// A command's help: usage, then examples and exit status (its `before_help`), then its own
/// arguments and options; the global options are listed once, by `options`, as kubectl does.
const COMMAND_HELP: &str = "{about-with-newline}\n{usage-heading} {usage}\n\n{before-help}Arguments:\n{positionals}\n\nOptions:\n{options}{after-help}";

const GLOBAL_OPTIONS_HINT: &str =
    "Use \"kubectl informer options\" for the global command-line options (kubeconfig, context, \
namespace, impersonation, TLS, -v), which apply to every command.";

/// The command line's definition, with the help layout applied to every command; parse with
/// [`parse`], complete with it (completion scripts, `__complete`).
pub fn command() -> clap::Command {
    let mut root = <Cli as clap::CommandFactory>::command();
    // Propagates the global options to every command, so that they can be hidden there.
    root.build();
    let names: Vec<String> = root
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .filter(|n| !matches!(n.as_str(), "options" | "schema" | "help"))
        .collect();
    for name in names {
        root = root.mut_subcommand(name, |c| {
            let c = c.help_template(COMMAND_HELP).mut_args(|a| {
                if a.is_global_set() {
                    a.hide(true)
                } else {
                    a
                }
            });
            let after = match c.get_after_help() {
                Some(own) => format!("{own}\n\n{GLOBAL_OPTIONS_HINT}"),
                None => GLOBAL_OPTIONS_HINT.to_string(),
            };
            c.after_help(after)
        });
    }
    root
}

/// Parses the process's arguments with [`command`]'s layout.
pub fn parse() -> Result<Cli, clap::Error> {
    use clap::FromArgMatches;
    let args: Vec<String> = std::env::args().collect();
    command()
        .try_get_matches_from(&args)
        .map_err(|e| unknown_flag::without_trailing_tip(e, &args))
        .and_then(|m| Cli::from_arg_matches(&m))
}

/// The help of `kubectl informer options`: every global option, once.
pub fn global_options_help() -> String {
    let cmd = GlobalArgs::augment_args(clap::Command::new("options"))
        .bin_name("kubectl informer")
        .no_binary_name(true)
        .disable_help_flag(true)
        .help_template("The following options can be passed to any command:\n\n{options}\n");
    cmd.mut_args(|a| a.global(false)).render_help().to_string()
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Stream the watch events of a resource with their resourceVersions and bookmarks.
    Tail(Box<TailArgs>),
    /// Compare an informer cache with a fresh LIST at one resourceVersion and report drift.
    Diff(Box<DiffArgs>),
    /// Measure event-handler backlog and workqueue latency under load, with percentiles and
    /// pass/fail gates for CI.
    Bench(Box<BenchArgs>),
    /// Check that a server (or a proxy in front of it) keeps the watch contract informers rely
    /// on, one line per check.
    Conform(Box<ConformArgs>),
    /// Print a shell completion script.
    Completion(CompletionArgs),
    /// Print the client's version and commit, and the server's version (as `kubectl version`).
    Version(VersionArgs),
    /// Print the global options, which every command takes (as `kubectl options`).
    Options,
    /// Print the documentation of the JSON outputs (tail's JSON Lines, diff's, bench's and
    /// conform's reports), or one document's JSON Schema.
    Schema(SchemaArgs),
}

/// `kubectl informer version`.
#[derive(Debug, Clone, Args)]
#[command(before_help = "Examples:\n  \
    kubectl informer version\n  \
    kubectl informer version --client\n\n\
    Exit status: 0 printed, 2 the server could not be asked (the client's lines are printed \
    first).")]
pub struct VersionArgs {
    /// Print the client's version only, without asking the server.
    #[arg(long)]
    pub client: bool,
}

/// `kubectl informer schema [DOCUMENT]`.
#[derive(Debug, Clone, Args)]
#[command(before_help = "Examples:\n  \
    # What every field of every JSON output means\n  \
    kubectl informer schema\n\n  \
    # The JSON Schema (draft 2020-12) of bench's report, to validate --export-json in CI\n  \
    kubectl informer schema bench-report > bench-report.schema.json")]
pub struct SchemaArgs {
    /// The document whose JSON Schema to print; without one, the documentation of them all.
    #[arg(value_enum)]
    pub document: Option<SchemaDocument>,
}

/// A JSON document kubectl-informer writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SchemaDocument {
    /// A line of `tail -o json` (the recording format).
    Recording,
    /// `diff -o json`.
    DiffReport,
    /// `bench --export-json` and `bench -o json`.
    BenchReport,
    /// `conform -o json`.
    ConformReport,
}

/// `kubectl informer bench [RESOURCE]`.
#[derive(Debug, Clone, Args)]
#[command(
    before_help = "Examples:\n  \
    # a simulated controller under load, in a scratch namespace bench creates and deletes\n  \
    kubectl informer bench --objects 200 --rate 100 --for 30s --handler-time exp:2ms --workers 2\n  \
    # a namespace's own traffic, writing nothing\n  \
    kubectl informer bench pods -n prod --no-churn --for 5m --export-markdown bench.md\n  \
    # a recording (tail --record), no cluster: a CI gate\n  \
    kubectl informer bench --from-file events.jsonl --fail-if 'queueDuration.p99 > 50ms'\n  \
    kubectl informer bench --from-file events.jsonl --baseline main.json --tolerance 10\n\n\
    Exit status: 0 all gates passed, 1 a gate failed or a figure regressed against --baseline, \
    2 error, 130 interrupted by Ctrl-C, 143 by SIGTERM (the scratch namespace is deleted first).",
    after_help = "Gates: --fail-if '<metric>.<stat> <op> <value>'\n  \
    latencies (a duration: 50ms, 1.5s, 250us): watchLatency, deliveryLag, handlerTime,\n    \
    queueDuration, workDuration; stats p50 p90 p99 p999 max mean count\n  \
    gauges: backlog, depth; stats max mean last\n  \
    counters (no stat): events, eventsPerSecond, adds, deduplicated, retries, writesWithoutEvent,\n    \
    reconnects, relists\n  \
    op: > >= < <=\n  \
    (metrics are named as in the JSON report; the snake_case names of schema version 1, e.g.\n    \
    queue_duration, are deprecated aliases)"
)]
pub struct BenchArgs {
    /// The resource the informer watches (live runs; default `configmaps`, or --template's):
    /// bench makes load for `configmaps`, or for any resource with --template; any resource with
    /// --no-churn.
    #[arg(value_name = "RESOURCE")]
    pub resource: Option<String>,
    /// Replay a recording (tail's JSON Lines) offline instead of watching a cluster.
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath, conflicts_with_all = ["no_churn", "objects", "rate", "run_for"])]
    pub from_file: Option<PathBuf>,
    /// Replay speed with --from-file: `max`, `1x` (the recorded spacing), `10x`.
    #[arg(
        long,
        value_name = "SPEED",
        default_value = "max",
        requires = "from_file"
    )]
    pub speed: String,
    /// Objects the generator creates before the clock starts.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub objects: usize,
    /// Writes per second during the run (creates, updates, deletes): `100` or `100/s`.
    #[arg(long, value_name = "R", default_value = "50")]
    pub rate: String,
    /// How long the measured run lasts (after --warmup), e.g. `30s`, `5m`; live runs only
    /// [default: 30s]. `--duration` is its older name.
    #[arg(long = "for", visible_alias = "duration", value_name = "DURATION")]
    pub run_for: Option<String>,
    /// Time at the start excluded from the figures.
    #[arg(long, value_name = "DURATION", default_value = "0s")]
    pub warmup: String,
    /// Make no load: measure the traffic of an existing namespace (-n) or of all (-A). Without
    /// it, the load goes into a scratch namespace bench creates and deletes, or with -n into
    /// that namespace, each object labelled with the run and deleted at the end.
    #[arg(long, conflicts_with_all = ["objects", "rate"])]
    pub no_churn: bool,
    /// With --no-churn: measure a namespace that does not exist (yet), whose traffic starts
    /// when it is created; without it that exits 2, since a measure of nothing is not a pass.
    #[arg(long, requires = "no_churn")]
    pub allow_empty: bool,
    /// Make the load with objects of this manifest (YAML or JSON of one object of RESOURCE, a
    /// CRD's included): created with generated names, then only updated by --mutate.
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath, conflicts_with_all = ["from_file", "no_churn"])]
    pub template: Option<PathBuf>,
    /// With --template: the field each update sets, and how its values are made (`counter` or
    /// `random`), e.g. 'spec.template.metadata.annotations.rev=counter' (default: an
    /// annotation of the pod template when there is one, else a label).
    #[arg(long, value_name = "PATH=GENERATOR", requires = "template")]
    pub mutate: Option<String>,
    /// Measure a real controller's reaction to each write: `observed-generation`,
    /// `owned:RESOURCE` (e.g. owned:replicasets) or `condition:TYPE[=STATUS]` (e.g.
    /// condition:Available=True). With --template (bench's writes), or with --no-churn
    /// (observed-generation only: others' writes, seen as generations going up).
    #[arg(long, value_name = "KIND", conflicts_with = "from_file")]
    pub react: Option<String>,
    /// With --react: a write with no reaction within this long counts in writesWithoutReaction.
    #[arg(
        long,
        value_name = "DURATION",
        default_value = "30s",
        requires = "react"
    )]
    pub reaction_timeout: String,
    /// Event handlers (informer listeners), each with its own pending buffer.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub handlers: usize,
    /// How long each handler takes: `2ms`, `exp:2ms` (exponential, mean 2ms),
    /// `uniform:1ms..5ms`. The handler sleeps without using the CPU, like one waiting on I/O.
    #[arg(long, value_name = "DIST", default_value = "0")]
    pub handler_time: String,
    /// Workers draining the workqueue.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub workers: usize,
    /// How long each work item takes (same forms as --handler-time).
    #[arg(long, value_name = "DIST", default_value = "0")]
    pub work_time: String,
    /// Percentage of work items that fail and are re-queued rate-limited (client-go's default
    /// controller rate limiter), e.g. `5`.
    #[arg(long, value_name = "PCT", default_value_t = 0.0)]
    pub error_rate: f64,
    /// Resync period of every handler, e.g. `30s` (default: none).
    #[arg(long, value_name = "DURATION")]
    pub resync: Option<String>,
    /// Seed of the handler, work and load draws (the same seed repeats a run's choices).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub seed: u64,
    /// Fail (exit 1) when EXPR holds, e.g. 'queueDuration.p99 > 50ms'. Repeatable.
    #[arg(long = "fail-if", value_name = "EXPR")]
    pub fail_if: Vec<String>,
    /// An earlier --export-json to compare with: a latency figure (p50, p90, p99, mean) that got
    /// worse by more than --tolerance fails the run.
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub baseline: Option<PathBuf>,
    /// Allowed worsening against --baseline, in percent.
    #[arg(
        long,
        value_name = "PCT",
        default_value_t = 10.0,
        requires = "baseline"
    )]
    pub tolerance: f64,
    /// Write the report as JSON (schema: `kubectl informer schema`) to FILE.
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub export_json: Option<PathBuf>,
    /// Write the figures as Markdown tables with Mermaid charts of backlog, depth and latency
    /// (for a pull-request comment or a job summary) to FILE.
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub export_markdown: Option<PathBuf>,
    /// Write the figures as one self-contained HTML page (tables and SVG charts, nothing
    /// fetched) to FILE.
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub export_html: Option<PathBuf>,
    /// Write the metrics in Prometheus text format, with client-go's workqueue_* names, to FILE.
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub export_prometheus: Option<PathBuf>,
    /// The encoding to LIST and WATCH in: `protobuf` (kube-apiserver's built-in types; custom
    /// resources, which it does not serve in protobuf, are read in JSON), `json`, or `cbor`
    /// (where the server serves CBOR, else JSON). Default: protobuf, or JSON with --react, whose
    /// reactions are read from the objects' JSON.
    #[arg(
        long,
        value_enum,
        value_name = "ENCODING",
        conflicts_with = "from_file"
    )]
    pub encoding: Option<WireEncoding>,
    /// Output format on stdout: the table, or the report's JSON document (as --export-json).
    #[arg(short = 'o', long, value_enum, default_value_t = ReportFormat::Text)]
    pub output: ReportFormat,
}

/// `kubectl informer tail RESOURCE[,RESOURCE...] [NAME]`.
#[derive(Debug, Clone, Args)]
#[command(before_help = "Examples:\n  \
    kubectl informer tail configmaps -n default\n  \
    kubectl informer tail deploy my-app -o json --max-events 10\n  \
    kubectl informer tail pods -A -l app=web --initial none\n  \
    # several resources in one stream, each with its own reflector\n  \
    kubectl informer tail deploy,rs,pods -n app -l app=web\n  \
    # a Deployment and what it owns (its ReplicaSets, their Pods), as they come and go\n  \
    kubectl informer tail deploy/web -n app --follow-owned\n  \
    # replay: exactly the events after RV 48213, until RV 48290 (exit 124 if it never comes)\n  \
    kubectl informer tail cm -n app --from-rv 48213 --until-rv 48290 --timeout 1m\n  \
    # what changed in each update, as a diff\n  \
    kubectl informer tail cm my-config -n app --diff\n  \
    # a recording for bench --from-file and diff --cache-file\n  \
    kubectl informer tail cm -A --record events.jsonl --for 10m\n\n\
    Exit status: 0 done (--until-rv or --max-events reached, --for over, the watch closed with \
    --no-reconnect, or the reader of stdout went away), 2 error (also an expired --from-rv), 124 \
    --timeout reached before --until-rv or --max-events, 130 interrupted by Ctrl-C, 143 by \
    SIGTERM.")]
pub struct TailArgs {
    /// The resource, as kubectl names it: `configmaps`, `cm`, `deployments.apps`, a CRD; or
    /// several separated by commas (`deploy,rs,pods`), merged in one stream; or one object as
    /// `TYPE/NAME` (`deploy/web`).
    #[arg(value_name = "RESOURCE")]
    pub resource: String,
    /// Only this object (a field selector on metadata.name); with one resource only.
    #[arg(value_name = "NAME")]
    pub name: Option<String>,
    /// Also tail what the named object owns, transitively: every object whose ownerReferences
    /// point to it or to an object it owns (a Deployment's ReplicaSets and their Pods), as they
    /// appear and go, in one stream.
    #[arg(long)]
    pub follow_owned: bool,
    /// With --follow-owned: the resources owned objects are looked for in, e.g. `rs,pods`
    /// (default: those the owner's kind is known to own, and those a LIST finds owned by the
    /// owner's kind in its namespace).
    #[arg(long, value_name = "RESOURCES", requires = "follow_owned")]
    pub owned_kinds: Option<String>,
    /// Label selector, e.g. `app=web,tier!=db`.
    #[arg(short = 'l', long, value_name = "SELECTOR")]
    pub selector: Option<String>,
    /// Field selector, e.g. `metadata.name=foo`.
    #[arg(long, value_name = "SELECTOR")]
    pub field_selector: Option<String>,
    /// How the initial state is obtained (without --from-rv): `list` prints the listed objects
    /// as ADDED (marked initial), `watch-list` gets them from one watch (sendInitialEvents), `none`
    /// prints only changes from now on.
    #[arg(long, value_enum, default_value_t = InitialMode::List)]
    pub initial: InitialMode,
    /// With --initial watch-list: how long the end of the initial events (the
    /// k8s.io/initial-events-end bookmark) may take after the watch opened or the last initial
    /// event, before falling back to LIST + WATCH (default 10s).
    #[arg(long, value_name = "DURATION")]
    pub initial_events_timeout: Option<String>,
    /// Replay: open the watch at this resourceVersion without any LIST and print exactly the
    /// events after it.
    #[arg(long, value_name = "RV", conflicts_with = "initial")]
    pub from_rv: Option<String>,
    /// What to do when --from-rv is older than the server's history (410 Gone): `fail` (exit 2)
    /// or `relist` (print the current state as relist events and go on).
    #[arg(long, value_enum, default_value_t = OnExpired::Fail, requires = "from_rv")]
    pub on_expired: OnExpired,
    /// Objects per LIST page.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_CHUNK_SIZE)]
    pub chunk_size: u32,
    /// Do not request or print BOOKMARK events.
    #[arg(long)]
    pub no_bookmarks: bool,
    /// Exit when the server closes the watch (0 on a normal close, 2 on an error) instead of
    /// re-opening it from the last resourceVersion.
    #[arg(long)]
    pub no_reconnect: bool,
    /// The watch's timeoutSeconds, whole seconds: the server closes each watch after this, e.g.
    /// `30s` (default, or 0: 5-10 minutes at random, as client-go).
    #[arg(long, value_name = "DURATION")]
    pub server_timeout: Option<String>,
    /// Stop after N object events (bookmarks and notices do not count).
    #[arg(long, value_name = "N")]
    pub max_events: Option<u64>,
    /// Stop after the first watch event or bookmark at or past this resourceVersion, or at the
    /// end of a LIST at or past it.
    #[arg(long, value_name = "RV")]
    pub until_rv: Option<String>,
    /// Stop after this much wall-clock time and exit 0, e.g. `30s`, `5m`.
    #[arg(long = "for", value_name = "DURATION")]
    pub run_for: Option<String>,
    /// Give up when --until-rv or --max-events is not reached within DURATION: stop and exit
    /// 124 (for a plain time box, use --for).
    #[arg(long, value_name = "DURATION")]
    pub timeout: Option<String>,
    /// Also write the events as JSON Lines (the recording format) to FILE, whatever -o says.
    /// FILE must not exist yet.
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub record: Option<std::path::PathBuf>,
    /// Print each MODIFIED as a unified diff of the object (as YAML) against its previous
    /// version; with -o json, each MODIFIED gains `patch`, the JSON Patch (RFC 6902) between
    /// them. metadata.resourceVersion, managedFields and generation are left out (see
    /// --diff-all).
    #[arg(long)]
    pub diff: bool,
    /// --diff with every field compared, those three included: the patch turns the previous
    /// object into the new one exactly.
    #[arg(long)]
    pub diff_all: bool,
    /// Watch metadata only (PartialObjectMetadata): much less data for large objects.
    #[arg(long)]
    pub metadata_only: bool,
    /// Print the values of Secret `data` and `stringData` (redacted by default).
    #[arg(long)]
    pub show_secret_data: bool,
    /// Print a summary on stderr at exit (on by default when stderr is a terminal).
    #[arg(long)]
    pub stats: bool,
    /// Output format.
    #[arg(short = 'o', long, value_enum, default_value_t = OutputFormat::Text)]
    pub output: OutputFormat,
    /// With -o yaml: keep metadata.managedFields, which are left out as kubectl leaves them
    /// out.
    #[arg(long)]
    pub show_managed_fields: bool,
    /// kubectl's `get -w`, taken so that it can be answered: tail always watches.
    #[arg(short = 'w', long, hide = true)]
    pub watch: bool,
    /// kubectl's `get --watch-only`, taken so that it can be answered: `--initial none`.
    #[arg(long, hide = true)]
    pub watch_only: bool,
}

/// `kubectl informer diff RESOURCE`.
#[derive(Debug, Clone, Args)]
#[command(before_help = "Examples:\n  \
    kubectl informer diff configmaps -n default\n  \
    kubectl informer diff deploy -A --settle 30s --show-fields\n  \
    kubectl informer diff cm -n app --save-cache before.jsonl\n  \
    kubectl informer diff cm -n app --cache-file before.jsonl -o json\n  \
    # a drift watchdog: compare every minute for an hour\n  \
    kubectl informer diff pods -n app --every 1m --for 1h\n\n\
    Exit status: 0 no drift, 1 drift found, 2 error (like kubectl diff), 124 --timeout reached \
    before the comparison finished, 130 interrupted by Ctrl-C, 143 by SIGTERM.")]
pub struct DiffArgs {
    /// The resource, as kubectl names it.
    #[arg(value_name = "RESOURCE")]
    pub resource: String,
    /// Label selector, e.g. `app=web`.
    #[arg(short = 'l', long, value_name = "SELECTOR")]
    pub selector: Option<String>,
    /// Field selector, e.g. `metadata.name=foo`.
    #[arg(long, value_name = "SELECTOR")]
    pub field_selector: Option<String>,
    /// How the informer gets its initial state: `watch-list`, as client-go v1.35 and later do
    /// (one consistent WATCH that streams it; falls back to `list` where the server refuses
    /// it), or `list`.
    #[arg(long, value_enum, default_value_t = CacheInitial::WatchList)]
    pub initial: CacheInitial,
    /// With --initial watch-list: how long the end of the initial events (the
    /// k8s.io/initial-events-end bookmark) may take after the watch opened or the last initial
    /// event, before falling back to LIST + WATCH (default 10s).
    #[arg(long, value_name = "DURATION")]
    pub initial_events_timeout: Option<String>,
    /// Keep the informer watching this long (with its reconnects and relists) before comparing.
    #[arg(long, value_name = "DURATION")]
    pub settle: Option<String>,
    /// Compare again at this interval while the informer keeps running (a drift watchdog);
    /// stop with Ctrl-C or --for.
    #[arg(long, value_name = "DURATION")]
    pub every: Option<String>,
    /// With --every: how long the watchdog runs, e.g. `1h` (exit 0 or 1 by its last
    /// comparison).
    #[arg(long = "for", value_name = "DURATION")]
    pub run_for: Option<String>,
    /// Give up when the comparison (sync, --settle, compare) has not finished within DURATION:
    /// stop and exit 124. Not with --every, which has no end: use --for.
    #[arg(long, value_name = "DURATION")]
    pub timeout: Option<String>,
    /// Objects per LIST page.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_CHUNK_SIZE)]
    pub chunk_size: u32,
    /// Compare a saved cache (JSON Lines in tail's recording format) with a LIST taken now,
    /// instead of running an informer.
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath, conflicts_with_all = ["save_cache", "settle", "every", "initial"])]
    pub cache_file: Option<PathBuf>,
    /// Write the informer's cache to FILE (tail's recording format) once synced. FILE must not
    /// exist yet.
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub save_cache: Option<PathBuf>,
    /// For stale and content drift, say which fields differ.
    #[arg(long)]
    pub show_fields: bool,
    /// Pass when there is nothing to compare (no object in the scope, or a namespace that does
    /// not exist); without it that exits 2, since a check of nothing is not a pass. With
    /// --every, the first comparison is checked.
    #[arg(long)]
    pub allow_empty: bool,
    /// The encoding to LIST and WATCH in: `protobuf` (kube-apiserver's built-in types; custom
    /// resources, which it does not serve in protobuf, are read in JSON), `json`, or `cbor`
    /// (where the server serves CBOR, else JSON). Default: protobuf, or JSON where objects are
    /// shown or recorded (--show-fields, --save-cache, --cache-file).
    #[arg(long, value_enum, value_name = "ENCODING")]
    pub encoding: Option<WireEncoding>,
    /// Output format.
    #[arg(short = 'o', long, value_enum, default_value_t = ReportFormat::Text)]
    pub output: ReportFormat,
}

/// `kubectl informer conform RESOURCE`.
#[derive(Debug, Clone, Args)]
#[command(
    before_help = "Examples:\n  \
    # every check on configmaps, writing only in a scratch namespace conform creates and deletes\n  \
    kubectl informer conform configmaps\n  \
    # a CRD: conform creates its objects from a manifest of one\n  \
    kubectl informer conform widgets.example.com --template widget.yaml -o json\n  \
    # through a proxy, writing nothing: the checks that need a write are SKIP\n  \
    kubectl informer conform pods -n prod --read-only --kubeconfig proxy.kubeconfig\n\n\
    Exit status: 0 every check that ran passed, 1 a check failed, 2 error (also a resource that \
    cannot be listed), 130 interrupted by Ctrl-C, 143 by SIGTERM (the scratch namespace is \
    deleted first).",
    after_help = "Checks:\n  \
    1 list-consistent   a LIST at RV \"\" is not older than a write made just before\n  \
    2 list-pagination   limit is honoured, continue tokens work, every page has the first's RV\n  \
    3 list-exact-rv     LIST with resourceVersionMatch=Exact returns the state at that RV\n  \
    4 watch-from-list   a WATCH from a LIST's RV delivers a later write, with a greater RV\n  \
    5 watch-rv-order    RVs increase along a watch (comparable integers, KEP-5504)\n  \
    6 watch-bookmarks   allowWatchBookmarks=true brings a BOOKMARK before the watch ends\n  \
    7 watch-list        sendInitialEvents=true ends the initial state with the\n                      \
    k8s.io/initial-events-end BOOKMARK (or is refused: client-go then LISTs)\n  \
    8 watch-expired     a WATCH from a compacted RV answers 410 Expired\n  \
    9 watch-timeout     the server ends a watch at its timeoutSeconds\n  \
    10 watch-unbuffered a write's event arrives within --delivery-limit\n  \
    11 watch-metadata   a metadata-only (PartialObjectMetadata) watch is served"
)]
pub struct ConformArgs {
    /// The resource, as kubectl names it: `configmaps`, `pods`, a CRD, an aggregated API's.
    #[arg(value_name = "RESOURCE")]
    pub resource: String,
    /// Write nothing: the checks run on the namespace of -n (or the context's) and those that
    /// need a write are SKIP. Without it conform writes only objects of its own: in a scratch
    /// namespace it creates and deletes, or with -n in that namespace, labelled with the run
    /// and deleted at the end.
    #[arg(long)]
    pub read_only: bool,
    /// A manifest (YAML or JSON) of one object of RESOURCE, which conform creates copies of:
    /// needed to write any resource but configmaps.
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath, conflicts_with = "read_only")]
    pub template: Option<PathBuf>,
    /// Check 7: how long the end of the initial events may take after the watch opened or the
    /// last initial event.
    #[arg(long, value_name = "DURATION", default_value = "10s")]
    pub initial_events_timeout: String,
    /// Check 10: how soon a write's event must arrive (a proxy that buffers the stream delivers
    /// it when its buffer fills or a timer fires).
    #[arg(long, value_name = "DURATION", default_value = "2s")]
    pub delivery_limit: String,
    /// Output format.
    #[arg(short = 'o', long, value_enum, default_value_t = ReportFormat::Text)]
    pub output: ReportFormat,
}

/// How `diff`'s informer obtains its initial state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CacheInitial {
    /// Paginated LIST, then WATCH.
    List,
    /// One WATCH with sendInitialEvents (falls back to `list` when refused).
    WatchList,
}

/// Output formats for reports (diff, bench).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// For people: a table and a verdict.
    Text,
    /// One JSON document (diff: one per line with --every).
    Json,
}

/// The encoding of LIST and WATCH responses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WireEncoding {
    /// Kubernetes' protobuf, where the server offers it (built-in types), else JSON.
    Protobuf,
    /// JSON.
    Json,
    /// CBOR, where the server offers it (kube-apiserver with its alpha CBORServingAndStorage
    /// gate on), else JSON.
    Cbor,
}

/// How `tail` obtains the initial state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InitialMode {
    /// Paginated LIST, then WATCH from the list's resourceVersion.
    List,
    /// One WATCH with sendInitialEvents (KEP-3157); falls back to `list` when refused.
    WatchList,
    /// Start from now: print only changes after the LIST's resourceVersion.
    None,
}

/// What `tail --from-rv` does when the RV is too old.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OnExpired {
    /// Exit 2 with the server's message.
    Fail,
    /// Relist, print what the relist found, and go on watching.
    Relist,
}

/// Output formats for event streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// One aligned line per event; MODIFIED lines say which fields changed.
    Text,
    /// Text plus kind, uid, generation, and the delay between the event's arrival and its print.
    Wide,
    /// JSON Lines, one event per line (schema: `kubectl informer schema`).
    Json,
    /// Each object as a YAML document, `---` between them, as `kubectl get -w -o yaml` prints.
    Yaml,
    /// `KIND.GROUP/NAME` per event, as `kubectl get -w -o name` prints.
    Name,
}

#[derive(Debug, Clone, Args)]
#[command(before_help = "Examples:\n  \
    source <(kubectl-informer completion bash)\n  \
    kubectl-informer completion zsh > \"${fpath[1]}/_kubectl-informer\"\n\n\
    Exit status: 0 printed, 2 error.")]
pub struct CompletionArgs {
    /// The shell to print a completion script for.
    #[arg(value_enum)]
    pub shell: CompletionShell,
}

/// Shells that `completion` writes scripts for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CompletionShell {
    Bash,
    Zsh,
    Fish,
    Powershell,
}

/// The async runtime's worker threads for `cli`, when not one per CPU: a replay (`bench
/// --from-file`) has no network to overlap with its work, and on one worker its tasks hand each
/// event on without waking another thread (BENCHMARKS.md, "bench --from-file against a client-go
/// informer").
pub fn worker_threads(cli: &Cli) -> Option<usize> {
    match &cli.command {
        Command::Bench(args) if args.from_file.is_some() => Some(1),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
