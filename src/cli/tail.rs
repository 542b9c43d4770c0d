//! `tail`'s command line ([`TailArgs`]), and the choices only it takes: how the initial state
//! is obtained ([`InitialMode`]), what an expired `--from-rv` does ([`OnExpired`]) and how
//! events are printed ([`OutputFormat`]).

use crate::duration;
use crate::informer::listwatch::DEFAULT_CHUNK_SIZE;
use crate::react::Reaction;
use clap::{Args, ValueEnum};
use std::time::Duration;

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
    # each spec change others make, and when the controller reacted to it\n  \
    kubectl informer tail deploy -n app --react observed-generation\n  \
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
    #[arg(long, value_name = "DURATION", value_parser = duration::parse)]
    pub initial_events_timeout: Option<Duration>,
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
    /// Show only object events of these types (comma-separated: ADDED,MODIFIED,DELETED); the
    /// others are counted in the summary as hidden.
    #[arg(long, value_name = "TYPES", value_delimiter = ',')]
    pub types: Vec<String>,
    /// Hide a MODIFIED whose changed fields are all at or under PATH (`status`,
    /// `metadata.annotations`, `spec.template.spec.containers[web]`; repeatable), counted in
    /// the summary as hidden.
    #[arg(long, value_name = "PATH")]
    pub ignore_field: Vec<String>,
    /// Exit when the server closes the watch (0 on a normal close, 2 on an error) instead of
    /// re-opening it from the last resourceVersion.
    #[arg(long)]
    pub no_reconnect: bool,
    /// The watch's timeoutSeconds, whole seconds: the server closes each watch after this, e.g.
    /// `30s` (default, or 0: 5-10 minutes at random, as client-go).
    #[arg(long, value_name = "DURATION", value_parser = whole_seconds)]
    pub server_timeout: Option<Duration>,
    /// Stop after N object events (bookmarks and notices do not count).
    #[arg(long, value_name = "N")]
    pub max_events: Option<u64>,
    /// Stop after the first watch event or bookmark at or past this resourceVersion, or at the
    /// end of a LIST at or past it.
    #[arg(long, value_name = "RV")]
    pub until_rv: Option<String>,
    /// Stop after this much wall-clock time and exit 0, e.g. `30s`, `5m`.
    #[arg(long = "for", value_name = "DURATION", value_parser = duration::parse)]
    pub run_for: Option<Duration>,
    /// Give up when --until-rv or --max-events is not reached within DURATION: stop and exit
    /// 124 (for a plain time box, use --for).
    #[arg(long, value_name = "DURATION", value_parser = duration::parse)]
    pub timeout: Option<Duration>,
    /// Also write the events as JSON Lines (the recording format) to FILE, whatever -o says.
    /// FILE must not exist yet.
    #[arg(long, value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub record: Option<std::path::PathBuf>,
    /// Show a controller's reaction to each spec change others make to the objects (a watch
    /// event whose generation went up; tail writes nothing), with its latency from that event,
    /// or that none came within --reaction-timeout: `observed-generation`, `owned:RESOURCE`
    /// (e.g. owned:replicasets, watched too) or `condition:TYPE[=STATUS]` (e.g.
    /// condition:Available=True). One resource only.
    #[arg(long, value_name = "KIND", value_parser = Reaction::parse)]
    pub react: Option<Reaction>,
    /// With --react: how long a reaction may take before a line says none came.
    #[arg(
        long,
        value_name = "DURATION",
        default_value = crate::react::DEFAULT_TIMEOUT,
        requires = "react",
        value_parser = duration::parse
    )]
    pub reaction_timeout: Duration,
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
    /// Output format: text, wide, json, yaml, name, or as kubectl's get: jsonpath=TEMPLATE,
    /// jsonpath-file=FILE, jsonpath-as-json=TEMPLATE, custom-columns=NAME:PATH[,...],
    /// custom-columns-file=FILE.
    #[arg(
        short = 'o',
        long,
        value_name = "FORMAT",
        default_value = "text",
        value_parser = OutputParser
    )]
    pub output: OutputFormat,
    /// With -o jsonpath: a key the template names that an object lacks prints nothing
    /// (`=false`: an error), as kubectl's flag of the same name.
    #[arg(
        long,
        value_name = "BOOL",
        default_value_t = true,
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "true",
        action = clap::ArgAction::Set
    )]
    pub allow_missing_template_keys: bool,
    /// With -o jsonpath or custom-columns: give the template kubectl's watch event,
    /// `{"type": "ADDED", "object": {...}}`, instead of the object (`{.type}`,
    /// `{.object.metadata.resourceVersion}`), as kubectl's flag of the same name.
    #[arg(long)]
    pub output_watch_events: bool,
    /// With -o custom-columns, or -L/--show-labels: no header line.
    #[arg(long)]
    pub no_headers: bool,
    /// A column per label KEY (headed by its last `/` segment, upper-cased) after each object,
    /// as kubectl's get -L; with text and wide output, which then head their columns.
    #[arg(short = 'L', long, value_name = "KEY", value_delimiter = ',')]
    pub label_columns: Vec<String>,
    /// A LABELS column (`k=v,...`, or <none>) after each object, as kubectl's get
    /// --show-labels; with text and wide output, which then head their columns.
    #[arg(long)]
    pub show_labels: bool,
    /// With -o yaml: keep metadata.managedFields, which are left out as kubectl leaves them
    /// out.
    #[arg(long)]
    pub show_managed_fields: bool,
    /// kubectl's `get -w`, accepted as kubectl users type it: tail always watches, so it
    /// changes nothing.
    #[arg(short = 'w', long, hide = true)]
    pub watch: bool,
    /// kubectl's `get --watch-only`: `--initial none`, only the changes from now on.
    #[arg(long, hide = true, conflicts_with = "initial")]
    pub watch_only: bool,
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
#[derive(Debug, Clone, PartialEq, Eq)]
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
    /// `jsonpath=`, `jsonpath-file=`: kubectl's JSONPath template, run on each object.
    JsonPath(Given),
    /// `jsonpath-as-json=`: the template's values as JSON arrays.
    JsonPathAsJson(String),
    /// `custom-columns=`, `custom-columns-file=`: kubectl's columns of JSONPaths.
    CustomColumns(Given),
}

/// A template given on the command line, or the file it is in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Given {
    Inline(String),
    File(std::path::PathBuf),
}

/// `-o`'s words (with what completion says of each), then the forms that take a template
/// after `=`.
const FORMATS: &[(&str, &str)] = &[
    ("text", "one aligned line per event"),
    ("wide", "text plus kind, uid, generation and delay"),
    ("json", "JSON Lines, one event per line"),
    ("yaml", "each object as YAML, as kubectl get -w"),
    ("name", "KIND.GROUP/NAME per event, as kubectl get -w"),
    ("jsonpath=", "kubectl's JSONPath template, on each object"),
    ("jsonpath-file=", "a JSONPath template in a file"),
    ("jsonpath-as-json=", "a JSONPath template's values as JSON"),
    ("custom-columns=", "kubectl's columns, NAME:PATH,..."),
    ("custom-columns-file=", "kubectl's columns in a file"),
];

impl OutputFormat {
    /// `-o`'s value: a format's name, or `FORM=TEMPLATE`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let (form, value) = text.split_once('=').unwrap_or((text, ""));
        let given = |v: &str| -> Result<String, String> {
            match (v.is_empty(), form.starts_with("custom-columns")) {
                (false, _) => Ok(v.to_string()),
                (true, true) => {
                    Err("custom-columns format specified but no custom columns given".into())
                }
                (true, false) => Err("template format specified but no template given".into()),
            }
        };
        Ok(match form {
            "text" | "wide" | "json" | "yaml" | "name" if !text.contains('=') => match form {
                "text" => OutputFormat::Text,
                "wide" => OutputFormat::Wide,
                "json" => OutputFormat::Json,
                "yaml" => OutputFormat::Yaml,
                _ => OutputFormat::Name,
            },
            "jsonpath" => OutputFormat::JsonPath(Given::Inline(given(value)?)),
            "jsonpath-file" => OutputFormat::JsonPath(Given::File(given(value)?.into())),
            "jsonpath-as-json" => OutputFormat::JsonPathAsJson(given(value)?),
            "custom-columns" => OutputFormat::CustomColumns(Given::Inline(given(value)?)),
            "custom-columns-file" => OutputFormat::CustomColumns(Given::File(given(value)?.into())),
            _ => {
                let names: Vec<&str> = FORMATS.iter().map(|(name, _)| *name).collect();
                return Err(format!(
                    "not one of {} (each = followed by its template or file)",
                    names.join(", ")
                ));
            }
        })
    }

    /// The format's name as `-o` spells it (without its template).
    pub fn name(&self) -> &'static str {
        match self {
            OutputFormat::Text => "text",
            OutputFormat::Wide => "wide",
            OutputFormat::Json => "json",
            OutputFormat::Yaml => "yaml",
            OutputFormat::Name => "name",
            OutputFormat::JsonPath(_) => "jsonpath",
            OutputFormat::JsonPathAsJson(_) => "jsonpath-as-json",
            OutputFormat::CustomColumns(_) => "custom-columns",
        }
    }
}

/// `-o`'s parser: its names offered to completion and listed in the help.
#[derive(Debug, Clone, Copy)]
struct OutputParser;

impl clap::builder::TypedValueParser for OutputParser {
    type Value = OutputFormat;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<OutputFormat, clap::Error> {
        let parse: fn(&str) -> Result<OutputFormat, String> = OutputFormat::parse;
        parse.parse_ref(cmd, arg, value)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(FORMATS.iter().map(|(name, help)| {
            clap::builder::PossibleValue::new(name).help(help)
        })))
    }
}

/// `--server-timeout`: a duration of whole seconds, as the watch's `timeoutSeconds` takes it.
fn whole_seconds(text: &str) -> Result<Duration, String> {
    let d = duration::parse(text).map_err(|e| e.to_string())?;
    if d.subsec_nanos() == 0 {
        return Ok(d);
    }
    let (below, above) = (d.as_secs(), d.as_secs() + 1);
    let choice = match below {
        0 => format!("{above}s"),
        _ => format!("{below}s or {above}s"),
    };
    Err(format!(
        "the watch's timeoutSeconds takes whole seconds: use {choice}"
    ))
}
