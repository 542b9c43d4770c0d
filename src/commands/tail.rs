//! `tail`: the reflector's output printed: every object event with its resourceVersion,
//! bookmarks, watch closes and reconnects, 410s and what a relist revealed; of several resources
//! (`deploy,rs,pods`), one reflector each, merged in arrival order; with `--follow-owned`, an
//! object and what it owns; with `--react`, a controller's reaction to each write seen (and,
//! for `owned:`, the owned resource watched beside it). This module sets the watches up and
//! hands them to a `tail::Session`, which writes what it shows to `records`; the summary and
//! errors are said here.

mod config;
mod records;

pub use config::{Begin, OwnedKinds, Stdout, TailConfig, Tailed};
use records::Records;

use super::{connect_and_discover, create_new_file, resolve_in, GlobalConfig, Resolved};
use crate::cluster::{ApiResource, Cluster};
use crate::error::{Error, Result, EXIT_OK};
use crate::informer::listwatch::ListWatch;
use crate::informer::merge::Merged;
use crate::informer::object::Encoding;
use crate::informer::reflector::{Reflector, ReflectorConfig, Start, INITIAL_EVENTS_TIMEOUT};
use crate::output::kubectl::{KubectlPrinter, TemplateFailed};
use crate::output::stderr_is_terminal;
use crate::output::tail_react::reaction_summary;
use crate::output::tail_summary::summary;
use crate::output::text::qualified_kind;
use crate::output::text::{replay_across_line, TextPrinter};
use crate::recording::{start_notice, EventPrinter, JsonPrinter, Tee};
use crate::tail::owned_resources::{self, Owner};
use crate::tail::owners::OwnerGraph;
use crate::tail::{
    Deadlines, Detail, Feed, Lookup, Reacting, Session, SessionConfig, Stop, TailError,
};
use crate::verbosity::Verbosity;
use std::path::Path;
use std::time::Instant;

/// Runs `tail` and returns the exit code.
pub async fn exec(global: &GlobalConfig, config: TailConfig) -> Result<u8> {
    let Watches {
        watches,
        graph,
        reacting,
    } = resolve_watches(global, &config).await?;
    let mut feeds = Vec::with_capacity(watches.len());
    let mut starts = Vec::with_capacity(watches.len());
    let mut reflectors = Vec::with_capacity(watches.len());
    let mut shown_feeds = 0;
    for (i, lw) in watches.into_iter().enumerate() {
        let shown = !reacting.as_ref().is_some_and(|r| r.only_for_reactions(i));
        shown_feeds += usize::from(shown);
        feeds.push(feed(&lw, i == 0, shown, &config));
        starts.push(start_notice(&lw));
        reflectors.push(Reflector::new(lw, reflector_config(&config)));
    }
    let several = shown_feeds > 1 || graph.is_some();
    let mut printer = output_printer(&config, several);
    if let Some(path) = &config.record {
        printer = with_record(printer, path)?;
    }
    let mut records = Records {
        printer,
        watches: starts,
    };
    let started = Instant::now();
    let mut session = Session::new(session_config(&config), feeds, graph);
    if let Some(reacting) = reacting {
        session = session.with_reactions(reacting);
    }
    let deadlines = Deadlines {
        ends: global.limits.ends(),
        gives_up: global.limits.gives_up(),
    };
    let reader_gone = crate::output::stdout_closed();
    let merged = Merged::start(reflectors);
    let outcome = session
        .run(merged, deadlines, reader_gone, &mut records)
        .await;
    let each: Vec<_> = session
        .shown_feeds()
        .map(|f| (f.resource(), f.stats()))
        .collect();
    let mut summary = summary(&each, started.elapsed());
    if let Some((react, stats)) = session.reactions() {
        summary.push(reaction_summary(react, &stats));
    }
    let _ = records.printer.finish();
    if config.stats || stderr_is_terminal() {
        for line in summary {
            crate::output::say(&line);
        }
    }
    match outcome {
        Ok(Stop::Done) => Ok(EXIT_OK),
        Ok(Stop::TimedOut) => Err(Error::TimedOut(session.missed_end())),
        Ok(Stop::Interrupted) => Ok(crate::stop::exit_code()),
        Err(e) => Err(e.into()),
    }
}

/// What the session shows, and when it stops, as the flags say.
fn session_config(config: &TailConfig) -> SessionConfig {
    SessionConfig {
        show_initial: config.begin.shows_initial(),
        bookmarks: config.bookmarks,
        detail: Detail {
            changes: config.stdout != Stdout::Json,
            diff: config.diff,
        },
        max_events: config.max_events,
        until_rv: config.until_rv.clone(),
        timeout: config.timeout,
        run_for: config.run_for,
        filter: config.filter.clone(),
    }
}

impl From<TailError> for Error {
    fn from(e: TailError) -> Self {
        match e {
            TailError::Watch(e) => (*e).into(),
            TailError::Diff { key, source } => Error::TailDiff { key, source },
            TailError::Redact { .. } => Error::Usage(e.to_string()),
            TailError::Output(e) => {
                match e.get_ref().and_then(|e| e.downcast_ref::<TemplateFailed>()) {
                    Some(failed) => Error::Failed(failed.to_string()),
                    None => Error::Output(e),
                }
            }
            other => Error::Watch(other.to_string()),
        }
    }
}

/// What a run watches, and what it makes of the watches beyond showing their events.
struct Watches {
    watches: Vec<ListWatch>,
    /// With `--follow-owned`: the owner graph that picks the followed objects.
    graph: Option<OwnerGraph>,
    /// With `--react`: the reactions to the writes of the first watch's objects (for `owned:`,
    /// shown by the second watch's).
    reacting: Option<Reacting>,
}

/// What tail watches: each resource named, or with `--follow-owned` the owner's resource and
/// those it may own, with the owner graph that picks the followed objects among them; with
/// `--react owned:`, the owned resource too.
async fn resolve_watches(global: &GlobalConfig, config: &TailConfig) -> Result<Watches> {
    Ok(match &config.tailed {
        Tailed::Resources { resources, .. } => {
            let (cluster, discovered) = connect_and_discover(global).await?;
            let targets = resolve_in(global, &cluster, &discovered, resources, VERBS)?;
            if targets.len() > 1 && replays(config) {
                one_order(global, &cluster, &targets).await?;
            }
            let owned = match (&config.react, targets.first()) {
                (Some(react), Some(written)) => {
                    let reaction = &react.reaction;
                    super::react::resolve(
                        global,
                        &cluster,
                        &discovered,
                        &written.resource,
                        reaction,
                    )
                    .await?
                    .map(|owned| owned_watch(written, owned, config))
                }
                _ => None,
            };
            let reacting = config
                .react
                .clone()
                .map(|react| Reacting::new(react, 0, owned.as_ref().map(|_| targets.len())));
            let mut watches: Vec<ListWatch> = targets
                .into_iter()
                .map(|t| list_watch(t, config, config.field_selector.clone()))
                .collect();
            watches.extend(owned);
            Watches {
                watches,
                graph: None,
                reacting,
            }
        }
        Tailed::FollowOwned {
            resource,
            name,
            owned,
        } => Watches {
            watches: follow_watches(global, config, resource, owned).await?,
            graph: Some(OwnerGraph::new(0, name)),
            reacting: None,
        },
    })
}

/// Whether the run names resourceVersions to start or stop at (`--from-rv`, `--until-rv`).
fn replays(config: &TailConfig) -> bool {
    matches!(config.begin, Begin::Replay { .. }) || config.until_rv.is_some()
}

/// A replay of several resources needs one order of resourceVersions: kube-apiserver stores
/// every resource it serves itself in one etcd, whose revision is every object's
/// resourceVersion, so one RV is one point in time for all (KEP-5504). A resource of an
/// aggregated API server, or one whose APIService cannot be read, is refused in one line; else
/// a notice says the replay is across them.
async fn one_order(global: &GlobalConfig, cluster: &Cluster, targets: &[Resolved]) -> Result<()> {
    for t in targets {
        let (group, version) = (&t.resource.group, &t.resource.version);
        let asked = global.limits.bound(
            cluster,
            "reading an APIService",
            cluster.aggregated_by(group, version),
        );
        let resource = t.resource.qualified_name();
        match asked.await {
            Ok(None) => {}
            Ok(Some(service)) => {
                return Err(Error::Usage(format!(
                    "{resource} is served by an aggregated API server (Service {service}), whose \
                     resourceVersions are its own: replay it on its own"
                )))
            }
            Err(Error::Stopped(code)) => return Err(Error::Stopped(code)),
            Err(e) => {
                return Err(Error::Usage(format!(
                    "cannot tell whether {resource} shares kube-apiserver's resourceVersions (its \
                     APIService {version}.{group}: {e}): replay each resource on its own"
                )))
            }
        }
    }
    let names: Vec<String> = targets
        .iter()
        .map(|t| t.resource.qualified_name())
        .collect();
    crate::output::say(&replay_across_line(&names));
    Ok(())
}

/// `--react owned:`'s watch: the owned resource where `written`'s objects can own objects (its
/// namespace, or everywhere), whole: owned objects carry their controller's labels, not the
/// selectors of the objects tailed.
fn owned_watch(written: &Resolved, owned: ApiResource, config: &TailConfig) -> ListWatch {
    let owner = Owner {
        resource: &written.resource,
        namespace: written.namespace.as_deref(),
    };
    let target = Resolved {
        cluster: written.cluster.clone(),
        namespace: owner.scope(&owned),
        resource: owned,
    };
    ListWatch {
        label_selector: None,
        ..list_watch(target, config, None)
    }
}

/// The feed of one watch (`first`: the first of the run's; `shown`: its events are, unlike
/// those of a watch only for the reactions it shows), before anything arrived.
fn feed(lw: &ListWatch, first: bool, shown: bool, config: &TailConfig) -> Feed {
    // The name selects the first watch's objects, unless it is an owner whose whole kind
    // is watched (`--follow-owned` of an object that owns others of its kind).
    let by_name = first
        && lw
            .field_selector
            .as_deref()
            .is_some_and(|f| f.starts_with("metadata.name="));
    let lookup = (shown && (lw.namespace.is_some() || by_name)).then(|| Lookup {
        cluster: lw.cluster.clone(),
        namespace: lw.namespace.clone(),
        name: config.tailed.name().filter(|_| by_name).map(str::to_string),
    });
    Feed::new(
        qualified_kind(&lw.resource.kind, &lw.resource.api_version()),
        lw.resource.qualified_name(),
        lw.resource.is_secret() && !config.show_secret_data,
        matches!(config.begin, Begin::Replay { .. }),
        lookup,
    )
}

/// The printer `-o` asks for, on stdout (text and kubectl's forms put notices on stderr); with
/// `several` resources, each line names its own.
fn output_printer(config: &TailConfig, several: bool) -> Box<dyn EventPrinter> {
    let stdout = std::io::BufWriter::new(std::io::stdout().lock());
    match &config.stdout {
        Stdout::Text {
            wide,
            labels,
            headers,
        } => {
            let text = TextPrinter::new(
                stdout,
                std::io::stderr(),
                crate::output::color_stdout(),
                *wide,
            )
            .with_labels(labels.clone(), *headers);
            if several {
                Box::new(text.naming_resources())
            } else {
                Box::new(text)
            }
        }
        Stdout::Json => Box::new(JsonPrinter::new(stdout)),
        Stdout::Kubectl(form) => Box::new(KubectlPrinter::new(
            stdout,
            std::io::stderr(),
            form.clone(),
            several,
        )),
    }
}

/// `--record`: `printer`'s events also recorded, as JSON Lines, in a new file (tail never
/// overwrites one).
fn with_record(printer: Box<dyn EventPrinter>, path: &Path) -> Result<Box<dyn EventPrinter>> {
    let file = create_new_file("--record", path)?;
    let recorder = JsonPrinter::new(std::io::BufWriter::new(file));
    Ok(Box::new(Tee(vec![printer, Box::new(recorder)])))
}

/// What tail needs of a resource: to list and watch it.
const VERBS: &[&str] = &["list", "watch"];

/// What `target`'s reflector lists and watches: with tail's selectors, `field_selector` for
/// fields.
fn list_watch(target: Resolved, config: &TailConfig, field_selector: Option<String>) -> ListWatch {
    ListWatch {
        cluster: target.cluster,
        resource: target.resource,
        namespace: target.namespace,
        label_selector: config.label_selector.clone(),
        field_selector,
        metadata_only: config.metadata_only,
        encoding: Encoding::Json,
        keep: crate::informer::object::Keep::Whole,
    }
}

/// `--follow-owned`: the named object's resource (by name, unless its objects own others of
/// their kind) and, watched whole in its scope, each resource owned objects are looked for in.
async fn follow_watches(
    global: &GlobalConfig,
    config: &TailConfig,
    owner: &str,
    owned: &OwnedKinds,
) -> Result<Vec<ListWatch>> {
    let (cluster, resources) = connect_and_discover(global).await?;
    let owner = resolve_in(global, &cluster, &resources, &[owner.to_string()], VERBS)?.remove(0);
    let of = Owner {
        resource: &owner.resource,
        namespace: owner.namespace.as_deref(),
    };
    let owned: Vec<ApiResource> = match owned {
        OwnedKinds::Named(names) => resolve_in(global, &cluster, &resources, names, VERBS)?
            .into_iter()
            .map(|t| t.resource)
            .collect(),
        OwnedKinds::Discovered => {
            let verbosity = Verbosity(global.verbose);
            owned_resources::discover(&cluster, of, &resources, verbosity).await?
        }
    };
    let owns_its_kind = owned.contains(&owner.resource);
    let by_name = (!owns_its_kind)
        .then(|| config.field_selector.clone())
        .flatten();
    let mut watches = Vec::with_capacity(owned.len() + 1);
    for resource in owned.into_iter().filter(|r| *r != owner.resource) {
        let target = Resolved {
            cluster: cluster.clone(),
            namespace: of.scope(&resource),
            resource,
        };
        watches.push(list_watch(target, config, None));
    }
    watches.insert(0, list_watch(owner, config, by_name));
    Ok(watches)
}

/// Each resource's reflector: how tail starts (LIST, watch-list or a replay) and watches.
fn reflector_config(config: &TailConfig) -> ReflectorConfig {
    let (start, initial_events_timeout, relist_if_replay_expired) = match &config.begin {
        Begin::List { .. } => (Start::List, INITIAL_EVENTS_TIMEOUT, false),
        Begin::WatchList {
            initial_events_timeout,
        } => (Start::WatchList, *initial_events_timeout, false),
        Begin::Replay {
            rv,
            relist_if_expired,
        } => (
            Start::FromResourceVersion(rv.clone()),
            INITIAL_EVENTS_TIMEOUT,
            *relist_if_expired,
        ),
    };
    ReflectorConfig {
        start,
        relist_if_replay_expired,
        chunk_size: config.chunk_size,
        bookmarks: config.bookmarks,
        server_timeout: config.server_timeout,
        reconnect: config.reconnect,
        initial_events_timeout,
    }
}
