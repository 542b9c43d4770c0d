//! One file per subcommand, each with a validated config and an `exec`; shared set-up here.

pub mod bench;
pub mod completion;
pub mod conform;
pub mod diff;
pub mod proxy;
mod react;
pub mod schema;
pub mod tail;
pub mod top;
pub mod version;

use crate::cli::{GlobalArgs, WireEncoding};
use crate::cluster::{self, ApiResource, Cluster, ClusterError, KubeconfigSelection, Transport};
use crate::error::{Error, Result};
use crate::informer::listwatch::ListWatch;
use crate::informer::object::{Encoding, Keep};
use std::path::Path;
use std::time::Duration;

/// kubectl's global flags, validated.
#[derive(Debug, Clone)]
pub struct GlobalConfig {
    pub selection: KubeconfigSelection,
    pub namespace: Option<String>,
    pub all_namespaces: bool,
    pub transport: Transport,
    pub verbose: u8,
    /// The run's own ends (`--for`, `--timeout`), counted from its start.
    pub limits: RunLimits,
}

/// The limits of a whole run, fixed when it starts: `--for` ends it (exit 0 once it has
/// watched or served; an error before the server first answered, since nothing was seen),
/// `--timeout` gives up (exit 124). The command's own loop ends at them; every step before it
/// (connecting, discovery, a first scrape) is bounded by them with [`RunLimits::bound`], as it
/// is by Ctrl-C and SIGTERM.
#[derive(Debug, Clone, Copy, Default)]
pub struct RunLimits {
    run_for: Option<(Duration, tokio::time::Instant)>,
    timeout: Option<(Duration, tokio::time::Instant)>,
}

impl RunLimits {
    /// Limits counted from now; zero or absent durations are none.
    pub fn start(run_for: Option<Duration>, timeout: Option<Duration>) -> Self {
        let now = tokio::time::Instant::now();
        RunLimits {
            run_for: nonzero(run_for).map(|d| (d, now + d)),
            timeout: nonzero(timeout).map(|d| (d, now + d)),
        }
    }

    /// When `--for` ends the run.
    pub fn ends(&self) -> Option<tokio::time::Instant> {
        self.run_for.map(|(_, at)| at)
    }

    /// When `--timeout` gives up.
    pub fn gives_up(&self) -> Option<tokio::time::Instant> {
        self.timeout.map(|(_, at)| at)
    }

    /// Runs a step that comes before the command's own loop (`what`: `discovery of the API
    /// resources`) within the run's limits and until Ctrl-C or SIGTERM: a limit that ends it
    /// says what `cluster` was waiting for.
    pub async fn bound<T, E: Into<Error>>(
        &self,
        cluster: &Cluster,
        what: &str,
        step: impl std::future::Future<Output = std::result::Result<T, E>>,
    ) -> Result<T> {
        let interrupt = crate::stop::requested();
        // Kept until the end is said: its waits are what the message reads.
        tokio::pin!(step);
        tokio::select! {
            biased;
            _ = interrupt => Err(Error::Stopped(crate::stop::exit_code())),
            _ = sleep_until(self.ends()) => {
                let limit = self.run_for.map(|(d, _)| d).unwrap_or_default();
                Err(ended(cluster, what, "--for", limit).into())
            }
            _ = sleep_until(self.gives_up()) => {
                let limit = self.timeout.map(|(d, _)| d).unwrap_or_default();
                Err(Error::TimedOut(ended(cluster, what, "--timeout", limit).to_string()))
            }
            done = &mut step => done.map_err(Into::into),
        }
    }
}

/// `flag`'s `limit` ended `what` on `cluster`: what it was waiting for.
fn ended(cluster: &Cluster, what: &str, flag: &str, limit: Duration) -> ClusterError {
    let ended_by = format!("{flag} {}", crate::format::duration(limit));
    let waited = cluster.waiting_for().unwrap_or(cluster::PhaseTimeout {
        phase: cluster::Phase::ResponseHeaders,
        endpoint: cluster.server.clone(),
        after: limit,
    });
    cluster.no_answer(
        cluster::PhaseTimeout {
            after: limit,
            ..waited
        },
        what.to_string(),
        Some(ended_by),
    )
}

impl GlobalConfig {
    /// The namespace a command watches `resource` in: -n's, else the context's; `None` for all
    /// namespaces (-A) or a cluster-scoped resource.
    pub fn scope_of(&self, resource: &ApiResource, cluster: &Cluster) -> Option<String> {
        cluster.scope_of(resource, self.namespace.as_deref(), self.all_namespaces)
    }

    pub fn from_args(args: &GlobalArgs) -> Result<Self> {
        Ok(GlobalConfig {
            selection: args.selection().map_err(Error::Usage)?,
            namespace: args.checked_namespace().map_err(Error::Usage)?,
            all_namespaces: args.all_namespaces,
            transport: args.transport(),
            verbose: args.verbose,
            limits: RunLimits::default(),
        })
    }

    /// The same, with the run's limits counted from now.
    pub fn limited(mut self, run_for: Option<Duration>, timeout: Option<Duration>) -> Self {
        self.limits = RunLimits::start(run_for, timeout);
        self
    }

    /// Prints a diagnostic line on stderr when `-v` is at least `level`.
    pub fn log(&self, level: u8, message: impl FnOnce() -> String) {
        crate::verbosity::Verbosity(self.verbose).say(level, message);
    }
}

/// A cluster connection and the resource a command works on, in the scope the flags ask for.
pub struct Resolved {
    pub cluster: Cluster,
    pub resource: ApiResource,
    /// `None` for all namespaces (`-A`) or a cluster-scoped resource.
    pub namespace: Option<String>,
}

/// Connects, discovers, resolves `resource_arg` and checks that it supports `verbs`.
pub async fn resolve_target(
    global: &GlobalConfig,
    resource_arg: &str,
    verbs: &[&str],
) -> Result<Resolved> {
    let mut targets = resolve_targets(global, &[resource_arg.to_string()], verbs).await?;
    Ok(targets.remove(0))
}

/// Connects once, discovers once, and resolves each of `resource_args` (kubectl's `a,b,c`), in
/// order, each checked to support `verbs`. Two names of one resource (`po,pods`) are refused.
pub async fn resolve_targets(
    global: &GlobalConfig,
    resource_args: &[String],
    verbs: &[&str],
) -> Result<Vec<Resolved>> {
    let (cluster, resources) = connect_and_discover(global).await?;
    resolve_in(global, &cluster, &resources, resource_args, verbs)
}

/// Connects (saying to whom at `-v=1`) and discovers the resources the server serves.
pub async fn connect_and_discover(global: &GlobalConfig) -> Result<(Cluster, Vec<ApiResource>)> {
    let cluster = Cluster::connect(&global.selection, global.transport)
        .await?
        .with_verbosity(global.verbose);
    global.log(1, || {
        let acting = match &global.selection.overrides.impersonate {
            Some(other) => format!(" acting as \"{other}\""),
            None => String::new(),
        };
        format!(
            "context \"{}\", user \"{}\"{acting}, server {}",
            cluster.context, cluster.user, cluster.server
        )
    });
    let resources = global
        .limits
        .bound(
            &cluster,
            "discovery of the API resources",
            cluster.discover(),
        )
        .await?;
    Ok((cluster, resources))
}

/// Resolves each of `resource_args` among `resources`, as `resolve_targets` does.
pub fn resolve_in(
    global: &GlobalConfig,
    cluster: &Cluster,
    resources: &[ApiResource],
    resource_args: &[String],
    verbs: &[&str],
) -> Result<Vec<Resolved>> {
    let resolved = cluster::resolve_each(resource_args, resources)?;
    resource_args
        .iter()
        .zip(resolved)
        .map(|(arg, resource)| {
            let resource = resource.allowing(verbs)?;
            let namespace = global.scope_of(&resource, cluster);
            global.log(1, || resolved_to(arg, &resource, namespace.as_deref()));
            Ok(Resolved {
                cluster: cluster.clone(),
                resource,
                namespace,
            })
        })
        .collect()
}

/// `-v=1`'s line on what `arg` resolved to, in which scope.
fn resolved_to(arg: &str, resource: &ApiResource, namespace: Option<&str>) -> String {
    format!(
        "resolved \"{arg}\" to {} ({}, kind {}, {})",
        resource.qualified_name(),
        resource.api_version(),
        resource.kind,
        match namespace {
            Some(ns) => format!("namespace \"{ns}\""),
            None if resource.namespaced => "all namespaces".to_string(),
            None => "cluster-scoped".to_string(),
        }
    )
}

pub(crate) use crate::signal::sleep_until;

/// Creates the file `flag` names (`--record`, `--save-cache`), which must not exist yet: no
/// command overwrites a file the user named to write in.
pub(crate) fn create_new_file(flag: &str, path: &Path) -> Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| {
            Error::File(format!(
                "cannot create {flag} file {}: {e}: name a new file in a writable directory",
                path.display()
            ))
        })
}

/// A duration flag where `0` is the same as leaving it out (no limit, none).
pub fn nonzero(d: impl Into<Option<Duration>>) -> Option<Duration> {
    d.into().filter(|d| !d.is_zero())
}

/// The encoding an informer asks for: `asked`, else protobuf unless `needs_json` names the flag
/// that needs the objects' JSON (shown or recorded); asking for protobuf or CBOR with that flag
/// is an error. And what it keeps of an object the server answers in JSON (a custom resource,
/// or anything asked in JSON): its text only for such a flag, else its identity and a digest.
pub fn wire_encoding(
    asked: Option<WireEncoding>,
    needs_json: Option<&str>,
) -> Result<(Encoding, Keep)> {
    let encoding = match (asked, needs_json) {
        (Some(binary @ (WireEncoding::Protobuf | WireEncoding::Cbor)), Some(flag)) => {
            let name = if binary == WireEncoding::Cbor {
                "cbor"
            } else {
                "protobuf"
            };
            return Err(Error::Usage(format!(
                "--encoding {name} with {flag}: {flag} needs the objects' JSON, which is not \
                 kept from {name}; drop --encoding"
            )));
        }
        (Some(WireEncoding::Json), _) | (None, Some(_)) => Encoding::Json,
        (Some(WireEncoding::Cbor), None) => Encoding::Cbor,
        (Some(WireEncoding::Protobuf) | None, None) => Encoding::Protobuf,
    };
    let keep = if needs_json.is_some() {
        Keep::Whole
    } else {
        Keep::Digest
    };
    Ok((encoding, keep))
}

/// `--initial-events-timeout`: only with a watch-list (`watch_list`), more than zero; the
/// reflector's default without it.
pub fn initial_events_timeout(asked: Option<Duration>, watch_list: bool) -> Result<Duration> {
    let Some(asked) = asked else {
        return Ok(crate::informer::reflector::INITIAL_EVENTS_TIMEOUT);
    };
    if !watch_list {
        return Err(Error::Usage(format!(
            "--initial-events-timeout {}: only a watch-list has initial events to wait for; add \
             --initial watch-list or drop the flag",
            crate::format::duration(asked)
        )));
    }
    match asked {
        d if d.is_zero() => Err(Error::Usage(
            "--initial-events-timeout 0: the end of the initial events needs some time, e.g. 10s"
                .into(),
        )),
        d => Ok(d),
    }
}

/// A namespace named with `-n` for a command to write in (`what`: `bench makes its load`):
/// refused when the server says it does not exist, since the command then writes nowhere.
pub(crate) async fn existing_namespace_to_write(
    cluster: &Cluster,
    namespace: &str,
    what: &str,
    limits: &RunLimits,
) -> Result<()> {
    if namespace_exists(cluster, namespace, limits).await? == Some(false) {
        return Err(Error::Usage(format!(
            "namespace \"{namespace}\" does not exist: {what} in an existing namespace you name \
             with -n, or, without -n, in a scratch namespace it creates and deletes"
        )));
    }
    Ok(())
}

/// Whether `namespace` exists (`None`: the server did not say), asked within the run's
/// `limits`.
pub(crate) async fn namespace_exists(
    cluster: &Cluster,
    namespace: &str,
    limits: &RunLimits,
) -> Result<Option<bool>> {
    let what = format!("the check that namespace \"{namespace}\" exists");
    let asked = async { Ok::<_, Error>(cluster.namespace_exists(namespace).await) };
    limits.bound(cluster, &what, asked).await
}

/// Why a check of `lw`'s scope found nothing, for `Error::NothingChecked`: the namespace does
/// not exist (when the server says so), or no object matches; `what` is what did not happen
/// (`nothing to compare`), `flag` the flag that says an empty scope is expected.
pub(crate) async fn nothing_checked(lw: &ListWatch, what: &str, flag: &str) -> Error {
    let resource = lw.resource.qualified_name();
    let missing = match &lw.namespace {
        Some(ns) => lw.cluster.namespace_exists(ns).await == Some(false),
        None => false,
    };
    let why = match &lw.namespace {
        Some(ns) if missing => format!(
            "namespace \"{ns}\" does not exist (kubectl get namespaces lists those that do)"
        ),
        scope => {
            let mut why = format!("no {resource}");
            match scope {
                Some(ns) => why.push_str(&format!(" in namespace \"{ns}\"")),
                None if lw.resource.namespaced => why.push_str(" in any namespace"),
                None => {}
            }
            for (name, selector) in [
                ("label selector", &lw.label_selector),
                ("field selector", &lw.field_selector),
            ] {
                if let Some(selector) = selector {
                    why.push_str(&format!(" with {name} \"{selector}\""));
                }
            }
            why
        }
    };
    Error::NothingChecked(format!(
        "{what}: {why}; a check of nothing is not a pass: check -n and the selectors, or pass \
         {flag} if an empty scope is expected"
    ))
}
