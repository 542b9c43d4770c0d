//! `bench`'s command line ([`BenchArgs`]): its flags, examples, exit status and gates, as its
//! help prints them.

use super::{ReportFormat, Via, WireEncoding};
use crate::bench::dist::Dist;
use crate::bench::gate::Gate;
use crate::bench::replay::Speed;
use crate::duration;
use crate::react::Reaction;
use clap::Args;
use std::path::PathBuf;
use std::time::Duration;

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
        requires = "from_file",
        value_parser = Speed::parse
    )]
    pub speed: Speed,
    /// Objects the generator creates before the clock starts.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub objects: usize,
    /// Writes per second during the run (creates, updates, deletes): `100` or `100/s`.
    #[arg(long, value_name = "R", default_value = "50", value_parser = rate)]
    pub rate: f64,
    /// How long the measured run lasts (after --warmup), e.g. `30s`, `5m`; live runs only
    /// [default: 30s]. Also how long, from the start, the run waits for the server before it
    /// measures (connecting, discovery, the first LIST and WATCH). `--duration` is its older
    /// name.
    #[arg(long = "for", visible_alias = "duration", value_name = "DURATION", value_parser = duration::parse)]
    pub run_for: Option<Duration>,
    /// Time at the start excluded from the figures.
    #[arg(long, value_name = "DURATION", default_value = "0s", value_parser = duration::parse)]
    pub warmup: Duration,
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
    #[arg(long, value_name = "KIND", conflicts_with = "from_file", value_parser = Reaction::parse)]
    pub react: Option<Reaction>,
    /// With --react: a write with no reaction within this long counts in writesWithoutReaction.
    #[arg(
        long,
        value_name = "DURATION",
        default_value = crate::react::DEFAULT_TIMEOUT,
        requires = "react",
        value_parser = duration::parse
    )]
    pub reaction_timeout: Duration,
    /// Also read a running controller's own metrics over the window, and report its
    /// workqueues, informers (and their lag behind the server), client throttling and
    /// reconcilers: `KIND/NAME[:PORT][/PATH]` (deploy, sts, ds, rs, svc or pod: the leading
    /// replica, by port-forward) or an `https://` URL (with the kubeconfig's credentials).
    /// Scraped when the window opens, every second, and when it closes. Live runs only.
    #[arg(long, value_name = "TARGET", conflicts_with = "from_file")]
    pub metrics_from: Option<String>,
    /// The namespace of --metrics-from's pod or service (default: -n's, else the context's).
    #[arg(long, value_name = "NAMESPACE", requires = "metrics_from")]
    pub metrics_namespace: Option<String>,
    /// How --metrics-from's KIND/NAME is reached: port-forward (HTTPS or HTTP, with a bearer
    /// token) or proxy (the API server's proxy to a pod or a service: plain HTTP, no
    /// credentials).
    #[arg(long, value_enum, default_value_t = Via::PortForward, requires = "metrics_from")]
    pub metrics_via: Via,
    /// Scrape --metrics-from with a token of this service account (sa/NAME, in its namespace),
    /// asked for with the TokenRequest API, instead of the kubeconfig user's; never printed.
    #[arg(long, value_name = "sa/NAME", requires = "metrics_from")]
    pub metrics_token_from: Option<String>,
    /// Event handlers (informer listeners), each with its own pending buffer.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub handlers: usize,
    /// How long each handler takes: `2ms`, `exp:2ms` (exponential, mean 2ms),
    /// `uniform:1ms..5ms`. The handler sleeps without using the CPU, like one waiting on I/O.
    #[arg(long, value_name = "DIST", default_value = "0", value_parser = Dist::parse)]
    pub handler_time: Dist,
    /// Workers draining the workqueue.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub workers: usize,
    /// How long each work item takes (same forms as --handler-time).
    #[arg(long, value_name = "DIST", default_value = "0", value_parser = Dist::parse)]
    pub work_time: Dist,
    /// Percentage of work items that fail and are re-queued rate-limited (client-go's default
    /// controller rate limiter), e.g. `5`.
    #[arg(long, value_name = "PCT", default_value_t = 0.0)]
    pub error_rate: f64,
    /// Resync period of every handler, e.g. `30s` (default: none).
    #[arg(long, value_name = "DURATION", value_parser = duration::parse)]
    pub resync: Option<Duration>,
    /// Seed of the handler, work and load draws (the same seed repeats a run's choices).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub seed: u64,
    /// Fail (exit 1) when EXPR holds, e.g. 'queueDuration.p99 > 50ms'. Repeatable.
    #[arg(long = "fail-if", value_name = "EXPR", value_parser = Gate::parse)]
    pub fail_if: Vec<Gate>,
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

/// `--rate`: writes per second, `100` or `100/s`.
fn rate(text: &str) -> Result<f64, String> {
    text.trim()
        .trim_end_matches("/s")
        .parse::<f64>()
        .ok()
        .filter(|r| (0.01..=100_000.0).contains(r))
        .ok_or_else(|| "give writes per second from 0.01 to 100000, e.g. 100 or 100/s".to_string())
}
