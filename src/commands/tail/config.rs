//! `tail`'s arguments turned into a validated `TailConfig` before any request: the resources
//! (kubectl's comma list), selectors, a name as a field selector, the start (LIST, watch-list or
//! a replay from an RV), stop conditions, the recording file, and `--react`'s reactions.

use super::super::nonzero;
use crate::cli::{Given, InitialMode, OnExpired, OutputFormat, TailArgs};
use crate::cluster::resource_version::ResourceVersion;
use crate::cluster::selector::{validate_field_selector, validate_label_selector};
use crate::error::{Error, Result};
use crate::informer::patch::DiffFields;
use crate::informer::transition::EventType;
use crate::output::custom_columns::Columns;
use crate::output::jsonpath::Template;
use crate::output::kubectl::{Form, WatchEvents};
use crate::output::labels::LabelColumns;
use crate::tail::{Filter, ReactConfig};
use std::time::Duration;

/// `tail`'s arguments, validated.
#[derive(Debug, Clone)]
pub struct TailConfig {
    /// What is tailed: resources, or an object and what it owns.
    pub tailed: Tailed,
    pub label_selector: Option<String>,
    /// The user's field selector, plus `metadata.name=NAME` when a name was given.
    pub field_selector: Option<String>,
    /// Where the events begin: a LIST, a watch-list, or a replay.
    pub begin: Begin,
    pub until_rv: Option<ResourceVersion>,
    pub chunk_size: u32,
    pub bookmarks: bool,
    /// `--types`, `--ignore-field`: what of the object events is hidden.
    pub filter: Filter,
    pub reconnect: bool,
    pub server_timeout: Option<u64>,
    pub max_events: Option<u64>,
    /// `--for`: the run's length, after which tail exits 0.
    pub run_for: Option<Duration>,
    /// `--timeout`: how long `--until-rv` or `--max-events` may take before tail exits 124.
    pub timeout: Option<Duration>,
    pub stats: bool,
    pub record: Option<std::path::PathBuf>,
    pub metadata_only: bool,
    pub show_secret_data: bool,
    /// How events are printed on stdout (`-o`).
    pub stdout: Stdout,
    /// `--diff` (`Content`) or `--diff-all` (`All`): each MODIFIED against its previous version.
    pub diff: Option<DiffFields>,
    /// `--react` and `--reaction-timeout`: a controller's reaction to each write seen.
    pub react: Option<ReactConfig>,
}

/// What `tail` watches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tailed {
    /// The resources as named (`deploy,rs,pods` is three), each tailed by its own reflector;
    /// with a `name`, the one object tailed (`tail deploy web`, `tail deploy/web`).
    Resources {
        resources: Vec<String>,
        name: Option<String>,
    },
    /// `--follow-owned`: the object `name` of `resource`, and what it owns, looked for in
    /// `owned`.
    FollowOwned {
        resource: String,
        name: String,
        owned: OwnedKinds,
    },
}

/// The resources `--follow-owned` looks for owned objects in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OwnedKinds {
    /// Those the owner's kind is known to own, and those a LIST finds owned by the owner's kind.
    Discovered,
    /// `--owned-kinds`: these, as named.
    Named(Vec<String>),
}

impl Tailed {
    /// The one object tailed, if one was named.
    pub fn name(&self) -> Option<&str> {
        match self {
            Tailed::Resources { name, .. } => name.as_deref(),
            Tailed::FollowOwned { name, .. } => Some(name),
        }
    }
}

/// Where `tail`'s events begin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Begin {
    /// A paginated LIST, then a watch from its resourceVersion; its objects are printed unless
    /// not `shown` (`--initial none`: only what changes after it).
    List { shown: bool },
    /// One watch that sends the current state first (`--initial watch-list`), whose end may
    /// take `initial_events_timeout` before tail falls back to a LIST.
    WatchList { initial_events_timeout: Duration },
    /// `--from-rv`: the events after `rv`, without a LIST; after a 410, a relist when
    /// `relist_if_expired` (`--on-expired relist`), else the end.
    Replay { rv: String, relist_if_expired: bool },
}

impl Begin {
    /// Whether the objects that exist at the start are printed (all but `--initial none`).
    pub fn shows_initial(&self) -> bool {
        !matches!(self, Begin::List { shown: false })
    }
}

/// How `tail` prints events on stdout.
#[derive(Debug, Clone, PartialEq)]
pub enum Stdout {
    /// One line per event (`-o text`); `wide` adds kind, uid, generation and delay (`-o wide`);
    /// `labels`: `-L` and `--show-labels`' columns after each object, under a header line
    /// unless not `headers` (`--no-headers`).
    Text {
        wide: bool,
        labels: LabelColumns,
        headers: bool,
    },
    /// JSON Lines, the recording format (`-o json`).
    Json,
    /// As `kubectl get -w` prints (`-o yaml`, `-o name`).
    Kubectl(Form),
}

impl TailConfig {
    pub fn from_args(args: &TailArgs) -> Result<Self> {
        check_output_forms(args)?;
        let (resource, name) = split_type_name(args)?;
        let resources = resource_list(resource)?;
        let react = react(args, &resources)?;
        let follow = match args.follow_owned {
            true => Some(check_follow(args, &resources, name.as_deref())?),
            false => None,
        };
        if resources.len() > 1 {
            one_resource_only(args, name.as_deref())?;
        }
        check_selectors(args)?;
        let field_selector = field_selector(args, name.as_deref())?;
        check_record(args)?;
        if args.chunk_size == 0 {
            return Err(Error::Usage(
                "--chunk-size must be at least 1 (objects per LIST page)".into(),
            ));
        }
        check_from_rv(args)?;
        let until_rv = until_rv(args)?;
        let (run_for, timeout) = (nonzero(args.run_for), nonzero(args.timeout));
        check_end(args, until_rv.as_ref(), timeout)?;
        Ok(TailConfig {
            tailed: match follow {
                Some((resource, name)) => Tailed::FollowOwned {
                    resource,
                    name,
                    owned: owned_kinds(args)?,
                },
                None => Tailed::Resources { resources, name },
            },
            label_selector: args.selector.clone().filter(|s| !s.is_empty()),
            field_selector,
            begin: begin(args)?,
            until_rv,
            chunk_size: args.chunk_size,
            bookmarks: !args.no_bookmarks,
            filter: filter(args)?,
            reconnect: !args.no_reconnect,
            server_timeout: nonzero(args.server_timeout).map(|d| d.as_secs()),
            max_events: args.max_events,
            run_for,
            timeout,
            stats: args.stats,
            record: args.record.clone(),
            metadata_only: args.metadata_only,
            show_secret_data: args.show_secret_data,
            stdout: stdout(args)?,
            diff: match (args.diff_all, args.diff) {
                (true, _) => Some(DiffFields::All),
                (false, true) => Some(DiffFields::Content),
                (false, false) => None,
            },
            react,
        })
    }
}

/// Where the events begin: `--from-rv`'s replay, else `--initial`'s start.
fn begin(args: &TailArgs) -> Result<Begin> {
    let watch_list = args.initial == InitialMode::WatchList && args.from_rv.is_none();
    let initial_events_timeout =
        super::super::initial_events_timeout(args.initial_events_timeout, watch_list)?;
    let initial = match args.watch_only {
        true => InitialMode::None,
        false => args.initial,
    };
    Ok(match (&args.from_rv, initial) {
        (Some(rv), _) => Begin::Replay {
            rv: ResourceVersion::sendable(rv)
                .map(|rv| rv.to_string())
                .unwrap_or_else(|_| rv.clone()),
            relist_if_expired: args.on_expired == OnExpired::Relist,
        },
        (None, InitialMode::WatchList) => Begin::WatchList {
            initial_events_timeout,
        },
        (None, InitialMode::List) => Begin::List { shown: true },
        (None, InitialMode::None) => Begin::List { shown: false },
    })
}

/// `-o`, with `--show-managed-fields` for `-o yaml`, its template read and checked.
fn stdout(args: &TailArgs) -> Result<Stdout> {
    let events = match args.output_watch_events {
        true => WatchEvents::Events,
        false => WatchEvents::Objects,
    };
    let jsonpath = |text: String, as_json: bool| -> Result<Stdout> {
        let template = Template::parse(&text).map_err(|e| Error::Usage(e.to_string()))?;
        Ok(Stdout::Kubectl(Form::JsonPath {
            template,
            allow_missing: args.allow_missing_template_keys,
            as_json,
            events,
        }))
    };
    Ok(match &args.output {
        OutputFormat::Text | OutputFormat::Wide => Stdout::Text {
            wide: args.output == OutputFormat::Wide,
            labels: LabelColumns {
                keys: args.label_columns.clone(),
                all: args.show_labels,
            },
            headers: !args.no_headers,
        },
        OutputFormat::Json => Stdout::Json,
        OutputFormat::Yaml => Stdout::Kubectl(Form::Yaml {
            managed_fields: args.show_managed_fields,
        }),
        OutputFormat::Name => Stdout::Kubectl(Form::Name),
        OutputFormat::JsonPath(given) => jsonpath(read_template("jsonpath-file", given)?, false)?,
        OutputFormat::JsonPathAsJson(text) => jsonpath(text.clone(), true)?,
        OutputFormat::CustomColumns(given) => {
            let columns = match given {
                Given::Inline(spec) => Columns::from_spec(spec),
                Given::File(_) => Columns::from_file(&read_template("custom-columns-file", given)?),
            };
            Stdout::Kubectl(Form::CustomColumns {
                columns: columns.map_err(Error::Usage)?,
                headers: !args.no_headers,
                events,
            })
        }
    })
}

/// A template given inline, or read from the file `-o FORM=FILE` names.
fn read_template(form: &str, given: &Given) -> Result<String> {
    match given {
        Given::Inline(text) => Ok(text.clone()),
        Given::File(path) => std::fs::read_to_string(path).map_err(|e| {
            Error::File(format!(
                "-o {form}={}: cannot read the template: {e}",
                path.display()
            ))
        }),
    }
}

/// `--types` and `--ignore-field`, checked: kubectl's event types (in any case), and field
/// paths as tail's MODIFIED lines name them (a leading `.` is taken, as proxy's verdicts write
/// them).
fn filter(args: &TailArgs) -> Result<Filter> {
    let types = match args.types.as_slice() {
        [] => None,
        given => Some(
            given
                .iter()
                .map(|t| match t.to_ascii_uppercase().as_str() {
                    "ADDED" => Ok(EventType::Added),
                    "MODIFIED" => Ok(EventType::Modified),
                    "DELETED" => Ok(EventType::Deleted),
                    _ => Err(Error::Usage(format!(
                        "--types {t:?}: not an event type: use ADDED, MODIFIED or DELETED \
                         (bookmarks: --no-bookmarks)"
                    ))),
                })
                .collect::<Result<Vec<EventType>>>()?,
        ),
    };
    let ignored = args
        .ignore_field
        .iter()
        .map(|path| {
            let path = path.strip_prefix('.').unwrap_or(path);
            let broken = path.is_empty() || path.ends_with('.') || path.contains("..");
            match broken {
                true => Err(Error::Usage(format!(
                    "--ignore-field {path:?}: not a field path: write it as MODIFIED lines name \
                     fields, e.g. status or spec.template.spec.containers[web]"
                ))),
                false => Ok(path.to_string()),
            }
        })
        .collect::<Result<Vec<String>>>()?;
    Ok(Filter { types, ignored })
}

/// `-l` and `--field-selector` in the server's syntax, checked before any request.
fn check_selectors(args: &TailArgs) -> Result<()> {
    if let Some(l) = &args.selector {
        validate_label_selector(l).map_err(Error::Usage)?;
    }
    if let Some(f) = &args.field_selector {
        validate_field_selector(f).map_err(Error::Usage)?;
    }
    Ok(())
}

/// `--record` names a file that does not exist yet: tail never overwrites one.
fn check_record(args: &TailArgs) -> Result<()> {
    if let Some(path) = &args.record {
        if path.exists() {
            return Err(Error::Usage(format!(
                "--record {}: the file exists; name a new file (tail never overwrites one)",
                path.display()
            )));
        }
    }
    Ok(())
}

/// `--from-rv` names a point in history kube-apiserver can read: a 64-bit number other than 0
/// ("" and "0" would mean any).
fn check_from_rv(args: &TailArgs) -> Result<()> {
    let Some(rv) = &args.from_rv else {
        return Ok(());
    };
    let sendable =
        ResourceVersion::sendable(rv).map_err(|e| Error::Usage(e.explain("--from-rv", rv)));
    if rv.is_empty() || sendable.as_ref().is_ok_and(|n| n.to_string() == "0") {
        return Err(Error::Usage(format!(
            "--from-rv \"{rv}\" is not a point in history (\"\" and \"0\" mean \"any\"): pass a \
             resourceVersion that tail or kubectl printed, or use --initial list"
        )));
    }
    sendable.map(|_| ())
}

/// `--until-rv` as a number kube-apiserver could reach, to compare the RVs seen with.
fn until_rv(args: &TailArgs) -> Result<Option<ResourceVersion>> {
    args.until_rv
        .as_ref()
        .map(|rv| {
            ResourceVersion::sendable(rv).map_err(|e| Error::Usage(e.explain("--until-rv", rv)))
        })
        .transpose()
}

/// The stop conditions: `--max-events` lets something print, and a `--timeout` has a wait to
/// limit (for `--until-rv` or `--max-events`).
fn check_end(
    args: &TailArgs,
    until_rv: Option<&ResourceVersion>,
    timeout: Option<Duration>,
) -> Result<()> {
    if args.max_events == Some(0) {
        return Err(Error::Usage(
            "--max-events 0: tail would print nothing; give at least 1".into(),
        ));
    }
    if let (Some(t), None, None) = (timeout, until_rv, args.max_events) {
        let t = crate::format::duration(t);
        return Err(Error::Usage(format!(
            "--timeout {t} limits the wait for --until-rv or --max-events, and neither is \
             given: to stop after {t} and exit 0, use --for {t}"
        )));
    }
    Ok(())
}

/// `--react` and its timeout, refused with the flags it means nothing with, saying why.
fn react(args: &TailArgs, resources: &[String]) -> Result<Option<ReactConfig>> {
    let Some(reaction) = &args.react else {
        return Ok(None);
    };
    let refuse = |why: String| Err(Error::Usage(format!("--react {reaction} {why}")));
    if args.reaction_timeout.is_zero() {
        return Err(Error::Usage(
            "--reaction-timeout 0: a reaction needs some time, e.g. 30s".into(),
        ));
    }
    if resources.len() > 1 {
        return refuse(format!(
            "times the writes to one resource's objects, and {} are several: tail one \
             resource (owned:RESOURCE watches the owned resource beside it)",
            args.resource
        ));
    }
    if args.follow_owned {
        return refuse(
            "cannot be used with --follow-owned, which shows what an object owns, not what \
             reacts to its writes: for the objects a controller makes in reaction, use --react \
             owned:RESOURCE without --follow-owned"
                .into(),
        );
    }
    if args.from_rv.is_some() {
        return refuse(
            "cannot be used with --from-rv: a replay delivers past events as fast as the \
             server sends them, so the time from a write to its reaction is lost; drop \
             --from-rv to see reactions from now on"
                .into(),
        );
    }
    if args.metadata_only && reaction.reads_status() {
        return refuse(
            "cannot be used with --metadata-only: metadata-only objects carry no status, where \
             observedGeneration and conditions are; drop --metadata-only, or use --react \
             owned:RESOURCE (read from ownerReferences)"
                .into(),
        );
    }
    Ok(Some(ReactConfig {
        reaction: reaction.clone(),
        timeout: args.reaction_timeout,
    }))
}

/// Where `--follow-owned` looks for owned objects: the resources `--owned-kinds` names.
fn owned_kinds(args: &TailArgs) -> Result<OwnedKinds> {
    Ok(match &args.owned_kinds {
        None => OwnedKinds::Discovered,
        Some(kinds) => OwnedKinds::Named(
            resource_list(kinds).map_err(|e| Error::Usage(format!("--owned-kinds: {e}")))?,
        ),
    })
}

/// The resource argument and the object's name: `deploy web` or kubectl's `deploy/web`.
fn split_type_name(args: &TailArgs) -> Result<(&str, Option<String>)> {
    let Some((resource, name)) = args.resource.split_once('/') else {
        return Ok((&args.resource, args.name.clone()));
    };
    if let Some(extra) = &args.name {
        return Err(Error::Usage(format!(
            "{} already names an object, and {extra} is another: pass TYPE/NAME or TYPE NAME, \
             as with kubectl",
            args.resource
        )));
    }
    if resource.is_empty() || resource.contains(',') {
        return Err(Error::Usage(format!(
            "invalid object \"{}\": TYPE/NAME names one object of one resource, e.g. deploy/web",
            args.resource
        )));
    }
    Ok((resource, Some(name.to_string())))
}

/// kubectl's comma list of resources (`deploy,rs,pods`), none empty.
fn resource_list(text: &str) -> Result<Vec<String>> {
    let resources: Vec<String> = text.split(',').map(str::to_string).collect();
    if resources.iter().any(String::is_empty) {
        return Err(Error::Usage(format!(
            "invalid resource list \"{text}\": an empty name; separate resources with single \
             commas, e.g. deploy,rs,pods"
        )));
    }
    Ok(resources)
}

/// `--follow-owned` follows one named object, whose owned objects are chosen by their
/// ownerReferences, not by selectors, and come from several resources (no one RV): its
/// resource and its name.
fn check_follow(
    args: &TailArgs,
    resources: &[String],
    name: Option<&str>,
) -> Result<(String, String)> {
    let ([resource], Some(name)) = (resources, name) else {
        return Err(Error::Usage(format!(
            "--follow-owned follows one object: name it, e.g. tail deploy/web --follow-owned \
             (got {})",
            args.resource
        )));
    };
    for (flag, given) in [
        ("-l/--selector", args.selector.is_some()),
        ("--field-selector", args.field_selector.is_some()),
        ("--from-rv", args.from_rv.is_some()),
        ("--until-rv", args.until_rv.is_some()),
    ] {
        if given {
            return Err(Error::Usage(format!(
                "{flag} cannot be used with --follow-owned: the owned objects are the ones whose \
                 ownerReferences lead to the named object, in several resources with \
                 resourceVersions of their own; drop {flag}"
            )));
        }
    }
    Ok((resource.clone(), name.to_string()))
}

/// apimachinery's `fields.EscapeValue`: `\`, `,` and `=` are escaped with a backslash.
fn escape_field_value(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        if matches!(c, '\\' | ',' | '=') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The output flags that go only with some forms.
fn check_output_forms(args: &TailArgs) -> Result<()> {
    let kubectl_form = !matches!(
        args.output,
        OutputFormat::Text | OutputFormat::Wide | OutputFormat::Json
    );
    let form = args.output.name();
    if kubectl_form && (args.diff || args.diff_all) {
        let flag = if args.diff_all {
            "--diff-all"
        } else {
            "--diff"
        };
        return Err(Error::Usage(format!(
            "{flag} with -o {form}: a diff is shown in text (-o text or wide) or as a JSON Patch \
             (-o json)"
        )));
    }
    if args.show_managed_fields && args.output != OutputFormat::Yaml {
        return Err(Error::Usage(
            "--show-managed-fields is for -o yaml (-o json prints objects whole, their \
             managedFields included)"
                .into(),
        ));
    }
    check_template_flags(args, form)
}

/// The flags of kubectl's printers, each with the forms it means something with.
fn check_template_flags(args: &TailArgs, form: &str) -> Result<()> {
    let text = matches!(args.output, OutputFormat::Text | OutputFormat::Wide);
    let columns = matches!(args.output, OutputFormat::CustomColumns(_));
    let jsonpath = matches!(
        args.output,
        OutputFormat::JsonPath(_) | OutputFormat::JsonPathAsJson(_)
    );
    for (flag, given) in [
        ("--show-labels", args.show_labels),
        ("--label-columns", !args.label_columns.is_empty()),
    ] {
        if given && !text {
            return Err(Error::Usage(format!(
                "{flag} option cannot be used with {form} printer: label columns go with text \
                 and wide output (with -o custom-columns, add a column such as \
                 APP:.metadata.labels.app)"
            )));
        }
    }
    if args.output_watch_events && !(columns || jsonpath) {
        return Err(Error::Usage(format!(
            "--output-watch-events is for -o jsonpath and -o custom-columns, whose template it \
             gives each watch event ({{.type}}, {{.object...}}); -o {form} prints each event's \
             type already, or only the object as kubectl does"
        )));
    }
    if args.no_headers
        && !(columns || (text && (args.show_labels || !args.label_columns.is_empty())))
    {
        return Err(Error::Usage(format!(
            "--no-headers: -o {form} prints no header line (only -o custom-columns, and text \
             with -L or --show-labels, do)"
        )));
    }
    if !args.allow_missing_template_keys && !jsonpath {
        return Err(Error::Usage(format!(
            "--allow-missing-template-keys is for -o jsonpath (custom-columns print <none> for \
             a missing key, as kubectl's), not -o {form}"
        )));
    }
    Ok(())
}

/// What several resources (`tail deploy,rs,pods`) cannot be given with: a name. (A replay's
/// resourceVersions are checked once the resources are known: they must share one order.)
fn one_resource_only(args: &TailArgs, name: Option<&str>) -> Result<()> {
    match name {
        Some(name) => Err(Error::Usage(format!(
            "a name ({name}) cannot be given with several resources ({}), as with \
             kubectl: tail one resource, or select with -l or --field-selector",
            args.resource
        ))),
        None => Ok(()),
    }
}

/// The field selector to watch with: a named object's `metadata.name=` and the user's.
fn field_selector(args: &TailArgs, name: Option<&str>) -> Result<Option<String>> {
    Ok(match (name, &args.field_selector) {
        (Some(name), user) => {
            if name.is_empty() || name.contains('/') {
                return Err(Error::Usage(format!(
                    "invalid object name \"{name}\": names are non-empty and contain no '/'"
                )));
            }
            let by_name = format!("metadata.name={}", escape_field_value(name));
            Some(match user {
                Some(f) if !f.is_empty() => format!("{by_name},{f}"),
                _ => by_name,
            })
        }
        (None, user) => user.clone(),
    })
}

#[cfg(test)]
mod tests;
