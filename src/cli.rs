//! The command line as clap sees it: plain structs, validated later into each command's config.

use clap::{Args, Parser, Subcommand, ValueEnum};

mod bench;
mod conform;
mod diff;
mod errors;
mod global;
mod proxy;
mod tail;
mod top;

pub use bench::BenchArgs;
pub use conform::ConformArgs;
pub use diff::{CacheInitial, DiffArgs};
pub use global::GlobalArgs;
pub use proxy::ProxyArgs;
pub use tail::{Given, InitialMode, OnExpired, OutputFormat, TailArgs};
pub use top::TopArgs;

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

/// The root's help: what it is, the commands, where the global options are (kubectl's layout).
const ROOT_HELP: &str =
    "{about-with-newline}\n{usage-heading} {usage}\n\nCommands:\n{subcommands}\n\n{after-help}";

/// A command's help: usage, then examples and exit status (its `before_help`), then its own
/// arguments and options; the global options are listed once, by `options`, as kubectl does.
const COMMAND_HELP: &str = "{about-with-newline}\n{usage-heading} {usage}\n\n{before-help}Arguments:\n{positionals}\n\nOptions:\n{options}{after-help}";

/// [`COMMAND_HELP`] for a command without positional arguments: no empty "Arguments:" heading.
const COMMAND_HELP_NO_ARGUMENTS: &str =
    "{about-with-newline}\n{usage-heading} {usage}\n\n{before-help}Options:\n{options}{after-help}";

const GLOBAL_OPTIONS_HINT: &str =
    "Use \"kubectl informer options\" for the global command-line options (kubeconfig, context, \
namespace, impersonation, TLS, -v), which apply to every command.";

/// The command line's definition, with the help layout applied to every command; parse with
/// [`parse`], complete with it (completion scripts, `__complete`).
pub fn command() -> clap::Command {
    let mut root = with_kubectl_forms(<Cli as clap::CommandFactory>::command());
    // Propagates the global options to every command, so that they can be hidden there.
    root.build();
    let names: Vec<String> = root
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .filter(|n| !matches!(n.as_str(), "options" | "schema" | "help"))
        .collect();
    for name in names {
        root = root.mut_subcommand(name, |c| {
            let template = if c.get_positionals().any(|a| !a.is_hide_set()) {
                COMMAND_HELP
            } else {
                COMMAND_HELP_NO_ARGUMENTS
            };
            let c = c.help_template(template).mut_args(|a| {
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

/// `cmd` and its commands with kubectl's forms of two kinds of flag, set here once for every
/// flag rather than on each field: a boolean flag takes `--flag`, `--flag=true` and
/// `--flag=false` (and `-A=false`), while `--flag true` leaves `true` a positional argument, as
/// in kubectl; a duration flag takes a value that starts with `-` (`--for -1s`), so that the
/// duration parser says why a negative one is refused instead of clap calling `-1` a flag.
fn with_kubectl_forms(cmd: clap::Command) -> clap::Command {
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect();
    let mut cmd = cmd.mut_args(kubectl_form);
    for name in names {
        cmd = cmd.mut_subcommand(name, with_kubectl_forms);
    }
    cmd
}

/// One flag of [`with_kubectl_forms`]. The help of a boolean flag shows `--flag[=<BOOL>]`,
/// without `[default: false] [possible values: true, false]` under it.
fn kubectl_form(a: clap::Arg) -> clap::Arg {
    use clap::ArgAction;
    let a = match a.get_action() {
        ArgAction::SetTrue => a
            .action(ArgAction::Set)
            .value_name("BOOL")
            .num_args(0..=1)
            .require_equals(true)
            .default_value("false")
            .default_missing_value("true")
            .value_parser(clap::value_parser!(bool)),
        _ if a.get_value_names().is_some_and(|v| v == ["DURATION"]) => a.allow_hyphen_values(true),
        _ => a,
    };
    let values: Vec<String> = a
        .get_possible_values()
        .iter()
        .map(|v| v.get_name().to_string())
        .collect();
    match a.get_action().takes_values() && values == ["true", "false"] {
        true => a.hide_default_value(true).hide_possible_values(true),
        false => a,
    }
}

/// Parses the process's arguments with [`command`]'s layout.
pub fn parse() -> Result<Cli, clap::Error> {
    parse_from(std::env::args().collect())
}

/// Parses `args` (the program's name first) as [`parse`] does.
pub fn parse_from(args: Vec<String>) -> Result<Cli, clap::Error> {
    use clap::FromArgMatches;
    command()
        .try_get_matches_from(&args)
        .and_then(|m| Cli::from_arg_matches(&m))
        .map_err(|e| errors::in_one_line(e, &args))
}

/// The help of `kubectl informer options`: every global option, once.
pub fn global_options_help() -> String {
    let cmd = GlobalArgs::augment_args(clap::Command::new("options"))
        .bin_name("kubectl informer")
        .no_binary_name(true)
        .disable_help_flag(true)
        .help_template("The following options can be passed to any command:\n\n{options}\n");
    with_kubectl_forms(cmd)
        .mut_args(|a| a.global(false))
        .render_help()
        .to_string()
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
    /// A running controller's own workqueues, informers and client throttling, from its
    /// metrics endpoint, refreshed every interval like kubectl top.
    Top(Box<TopArgs>),
    /// Serve the cluster's API on a loopback port with your credentials, over HTTPS and HTTP/2
    /// (as kube-apiserver does), for a controller to be started against.
    Proxy(Box<ProxyArgs>),
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
    kubectl informer version --client\n  \
    kubectl informer version -o json\n\n\
    Exit status: 0 printed, 2 the server could not be asked (the client's version is printed \
    first; with -o, the document without serverVersion).")]
pub struct VersionArgs {
    /// Print the client's version only, without asking the server.
    #[arg(long)]
    pub client: bool,
    /// One document, as kubectl's `version -o`: `clientVersion` (gitVersion, gitCommit) and
    /// `serverVersion` (the server's /version as it answered).
    #[arg(short = 'o', long, value_enum, value_name = "FORMAT")]
    pub output: Option<VersionOutput>,
}

/// `version -o`'s forms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum VersionOutput {
    Json,
    Yaml,
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
    /// A line of `top -o json`.
    TopLine,
    /// A line of `proxy -o json`.
    ProxyLine,
}

/// How a `KIND/NAME` metrics target is reached (top, bench --metrics-from).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Via {
    /// Through the API server's pods/portforward, as kubectl port-forward (needs create on
    /// pods/portforward): HTTPS or HTTP, with a bearer token.
    PortForward,
    /// Through the API server's proxy to a pod or a service, in plain HTTP and without
    /// credentials (needs get on pods/proxy or services/proxy).
    Proxy,
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
