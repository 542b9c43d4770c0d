//! `proxy`: the cluster's API on a loopback port, every request forwarded with the user's
//! credentials, over HTTPS with HTTP/2 (a CA of its own, made for the run) or, with
//! `--plain-http`, as kubectl proxy serves it. Exit 0 when `--for` ran out, 2 on an error, 130
//! and 143 after Ctrl-C and SIGTERM.

use super::GlobalConfig;
use crate::cli::{ProxyArgs, ReportFormat};
use crate::cluster::resolve::resolve;
use crate::cluster::Cluster;
use crate::error::{Error, Result, EXIT_FINDING, EXIT_OK};
use crate::output;
use crate::proxy::controller::{Ended, Spec, Supervisor};
use crate::proxy::engine::{Armed, Engine, Notice};
use crate::proxy::fault::{Fault, Kind};
use crate::proxy::serve::serve;
use crate::proxy::tls::Authority;
use crate::rng::Rng;
use base64::Engine as _;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use workload::Asked;

mod explore;
mod workload;

/// `--explore`, checked against the flags it takes the place of.
fn explore_flags(args: &ProxyArgs, workload: Option<&Asked>) -> Result<Option<explore::Explore>> {
    if !args.explore {
        if args.parallel.is_some() {
            return Err(Error::Usage("--parallel sets how many of --explore's runs go at once: give --explore, or leave out --parallel".into()));
        }
        return Ok(None);
    }
    let refuse = |why: &str| Err(Error::Usage(format!("--explore {why}")));
    match workload {
        None => return refuse("needs the workload whose end state it compares: give --workload 'COMMAND' and --state RESOURCES"),
        Some(w) if w.state.is_empty() => return refuse("needs the resources whose end state it compares: give --state RESOURCES"),
        Some(w) if w.save.is_some() || !w.baselines.is_empty() => return refuse("makes its baselines itself: leave out --save-state and --compare-state"),
        Some(_) => {}
    }
    if !args.faults.is_empty() {
        return refuse("chooses the faults itself: leave out --fault");
    }
    if args.controller.is_empty() {
        return refuse("runs the controller itself: put its command after --, e.g. -- ./manager --namespace={namespace}");
    }
    let side = crate::proxy::explore::side_by_side(
        args.controller.get(1..).unwrap_or_default(),
        args.parallel.map(usize::from),
    )
    .map_err(Error::Usage)?;
    Ok(Some(explore::Explore {
        late: crate::proxy::explore::Lateness {
            lag: args.explore_lag,
            window: args.explore_window,
        },
        side,
    }))
}

/// `proxy`'s arguments, validated: the faults parsed, the seed drawn.
#[derive(Debug, Clone)]
pub struct ProxyConfig {
    pub port: u16,
    pub write_kubeconfig: Option<PathBuf>,
    pub plain_http: bool,
    pub faults: Vec<Fault>,
    /// The faults' seed: the one given, else one from the clock (said in the first line).
    pub seed: u64,
    pub json: bool,
    /// `--for`: how long the proxy serves.
    pub run_for: Option<Duration>,
    /// The controller to run behind the proxy (after `--`): its program and arguments.
    pub controller: Option<(String, Vec<String>)>,
    /// `--workload`, and the end state it leaves.
    pub workload: Option<Asked>,
    /// `--explore`: runs of this command chosen from the baselines' trace.
    pub explore: Option<explore::Explore>,
}

impl ProxyConfig {
    pub fn from_args(args: &ProxyArgs) -> Result<Self> {
        let controller = args
            .controller
            .split_first()
            .map(|(program, args)| (program.clone(), args.to_vec()));
        if controller.is_none() {
            if let Some(crash) = args
                .faults
                .iter()
                .find(|f| matches!(f.kind, Kind::Crash { .. }))
            {
                return Err(Error::Usage(format!(
                    "--fault {crash}: a crash kills the controller the proxy runs, and none is given: put its command after --, e.g. kubectl informer proxy --fault {crash} -- ./manager"
                )));
            }
        }
        let workload = Asked::from_args(args)?;
        let explore = explore_flags(args, workload.as_ref())?;
        Ok(ProxyConfig {
            explore,
            workload,
            port: args.port,
            write_kubeconfig: args.write_kubeconfig.clone(),
            plain_http: args.plain_http,
            faults: args.faults.clone(),
            seed: args
                .seed
                .unwrap_or_else(|| Rng::from_clock().next_u64() % 1_000_000),
            json: args.output == ReportFormat::Json,
            run_for: args.run_for,
            controller,
        })
    }
}

pub async fn exec(global: &GlobalConfig, config: ProxyConfig) -> Result<u8> {
    if let Some(explore) = config.explore.clone() {
        return explore::run(global, &config, explore).await;
    }
    let wants_state = config
        .workload
        .as_ref()
        .is_some_and(|w| !w.state.is_empty());
    let (cluster, armed, discovered) = arm(global, &config.faults, wants_state).await?;
    let plan = workload_plan(global, &config, &discovered, &cluster)?;
    let workload_cluster = cluster.clone();
    let first_rv = first_read(&cluster, &armed).await?;
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", config.port))
        .await
        .map_err(|e| {
            Error::Usage(format!(
                "cannot serve on 127.0.0.1:{}: {e}: choose another port with -p (0 picks a free one)",
                config.port
            ))
        })?;
    let port = listener.local_addr().map_err(Error::Output)?.port();
    let authority = match config.plain_http {
        true => None,
        false => Some(Authority::new().map_err(|e| Error::Failed(e.to_string()))?),
    };
    let scheme = if authority.is_some() { "https" } else { "http" };
    let url = format!("{scheme}://127.0.0.1:{port}");
    let text = kubeconfig(&url, authority.as_ref(), &cluster.default_namespace);
    let (kubeconfig_path, own_kubeconfig) = write_kubeconfig(&config, &text)?;
    let (seed, json) = (config.seed, config.json);
    print_serving(&config, &url, &cluster)?;
    let (notices, received) = tokio::sync::mpsc::unbounded_channel();
    let mut engine = Engine::new(armed, seed, notices.clone()).with_verbosity(global.verbose);
    let mut supervisor = None;
    if let (Some(controller), Some(kubeconfig)) = (&config.controller, kubeconfig_path) {
        let (started, handle) = start_controller(controller, kubeconfig, notices)?;
        supervisor = Some(started);
        engine = engine.with_controller(handle);
    }
    let engine = Arc::new(engine);
    engine.run_timers();
    if let (Some((timeline, fault)), Some((rv, at))) = (engine.timeline(), first_rv) {
        timeline.record(at, rv);
        crate::proxy::stale::sample(cluster.clone(), engine.clone(), timeline, fault);
    }
    let started = std::time::Instant::now();
    let (stop_printing, stopped) = tokio::sync::oneshot::channel::<()>();
    let printer = tokio::spawn(print_notices(received, stopped, json));
    let interrupt = crate::stop::requested();
    let served = serve(
        listener,
        authority.map(|a| a.server),
        cluster,
        engine.clone(),
    );
    let code = tokio::select! {
        r = served => r.map(|()| EXIT_OK).map_err(|e| Error::Failed(format!("proxy stopped: {e}"))),
        _ = interrupt => Ok(crate::stop::exit_code()),
        _ = super::sleep_until(global.limits.ends()) => Ok(EXIT_OK),
        _ = ended_by_itself(supervisor.as_mut()) => Ok(EXIT_FINDING),
        code = workload::verdict(plan.as_ref(), &workload_cluster, &engine, json) => code,
    };
    let code = match supervisor {
        Some(supervisor) => match supervisor.stop().await {
            Ended::ByItself(_) => code.map(|c| c.max(EXIT_FINDING)),
            Ended::Stopped => code,
        },
        None => code,
    };
    drop(own_kubeconfig);
    let _ = stop_printing.send(());
    summarize(&engine, printer, started.elapsed(), json).await;
    code
}

/// The proxy's kubeconfig, written where `--write-kubeconfig` says, else (for the controller the
/// proxy runs) in a file of the run's own, removed when the second value is dropped; `None`
/// when neither is asked for.
fn write_kubeconfig(
    config: &ProxyConfig,
    text: &str,
) -> Result<(Option<PathBuf>, Option<tempfile::NamedTempFile>)> {
    match (&config.write_kubeconfig, &config.controller) {
        (Some(path), _) => {
            // Refused when it exists, as --record and --save-cache are (no command overwrites a
            // file the user named); then replaced whole, so that a reader waiting for the file
            // to be non-empty never reads half of it.
            drop(super::create_new_file("--write-kubeconfig", path)?);
            output::file::write_whole(path, text.as_bytes()).map_err(|e| {
                Error::File(format!(
                    "cannot write --write-kubeconfig {}: {e}",
                    path.display()
                ))
            })?;
            Ok((Some(path.clone()), None))
        }
        (None, Some(_)) => {
            let file = own_kubeconfig_file(text)?;
            Ok((Some(file.path().to_path_buf()), Some(file)))
        }
        (None, None) => Ok((None, None)),
    }
}

/// Starts the controller given after `--` on `kubeconfig`; its notices go with the faults'.
fn start_controller(
    (program, args): &(String, Vec<String>),
    kubeconfig: PathBuf,
    notices: tokio::sync::mpsc::UnboundedSender<Notice>,
) -> Result<(Supervisor, crate::proxy::controller::Handle)> {
    let spec = Spec {
        program: program.clone(),
        args: args.clone(),
        kubeconfig,
    };
    Supervisor::start(spec, notices).map_err(|e| {
        Error::Failed(format!(
            "cannot start the controller {program}: {e}: check the command after --"
        ))
    })
}

/// Returns when the controller the proxy runs has exited by itself; never without one.
async fn ended_by_itself(supervisor: Option<&mut Supervisor>) {
    match supervisor {
        Some(supervisor) => {
            supervisor.ended().await;
        }
        None => std::future::pending().await,
    }
}

/// The kubeconfig given to the controller when `--write-kubeconfig` names none: a file of the
/// run's own, removed when it is dropped.
fn own_kubeconfig_file(text: &str) -> Result<tempfile::NamedTempFile> {
    let cannot = |e: std::io::Error| {
        Error::File(format!(
            "cannot write the controller's kubeconfig in {}: {e}: name one with --write-kubeconfig FILE",
            std::env::temp_dir().display()
        ))
    };
    let mut file = tempfile::Builder::new()
        .prefix("kubectl-informer-proxy-")
        .suffix(".kubeconfig")
        .tempfile()
        .map_err(cannot)?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.flush())
        .map_err(cannot)?;
    Ok(file)
}

/// A `stale` fault serves from the resourceVersions read since the start: the first is read
/// before anything is served (and when it is, and `None` without a `stale`).
async fn first_read(
    cluster: &Cluster,
    armed: &[Armed],
) -> Result<Option<(String, tokio::time::Instant)>> {
    if !armed
        .iter()
        .any(|a| matches!(a.fault.kind, Kind::Stale { .. }))
    {
        return Ok(None);
    }
    let rv = crate::proxy::stale::newest(cluster).await?;
    Ok(Some((rv, tokio::time::Instant::now())))
}

/// The first line: where the proxy serves, for which cluster, with which faults and seed.
fn print_serving(config: &ProxyConfig, url: &str, cluster: &Cluster) -> Result<()> {
    let faults: Vec<String> = config.faults.iter().map(|f| f.text.clone()).collect();
    let (context, server, seed) = (&cluster.context, &cluster.server, config.seed);
    let first = match config.json {
        true => output::proxy::serving_json(url, context, server, seed, &faults).to_string(),
        false => output::proxy::serving_line(url, context, server, seed, &faults),
    };
    let mut out = std::io::stdout().lock();
    writeln!(out, "{first}")
        .and_then(|()| out.flush())
        .map_err(Error::Output)
}

/// The workload ready to run (its resources resolved, its baselines read), if one is asked for.
fn workload_plan(
    global: &GlobalConfig,
    config: &ProxyConfig,
    discovered: &[crate::cluster::ApiResource],
    cluster: &Cluster,
) -> Result<Option<workload::Ready>> {
    let Some(asked) = &config.workload else {
        return Ok(None);
    };
    let namespace = global.namespace.as_deref();
    let namespace = namespace.unwrap_or(&cluster.default_namespace);
    let mut ready = asked.ready(discovered, namespace, global.selection.path.as_ref())?;
    ready.plan.await_controller = config.controller.is_some();
    Ok(Some(ready))
}

/// Each fault, its resource resolved as kubectl names resolve (discovery is asked only when one
/// names a resource, or the end state is taken), and what discovery found.
async fn arm(
    global: &GlobalConfig,
    faults: &[Fault],
    discover: bool,
) -> Result<(Cluster, Vec<Armed>, Vec<crate::cluster::ApiResource>)> {
    let (cluster, resources) = match discover || faults.iter().any(|f| f.resource.is_some()) {
        true => super::connect_and_discover(global).await?,
        false => (
            Cluster::connect(&global.selection, global.transport)
                .await?
                .with_verbosity(global.verbose),
            Vec::new(),
        ),
    };
    let armed = faults
        .iter()
        .map(|fault| {
            let scope = match &fault.resource {
                Some(name) => Some(
                    resolve(name, &resources)
                        .map_err(|e| Error::Usage(format!("--fault {}: {e}", fault.text)))?
                        .clone(),
                ),
                None => None,
            };
            Ok(Armed {
                fault: fault.clone(),
                scope,
            })
        })
        .collect::<Result<_>>()?;
    Ok((cluster, armed, resources))
}

/// Prints each notice as it comes until `stopped`, then those already queued, so that none
/// applied before the proxy stopped is missing before the summary.
async fn print_notices(
    mut received: tokio::sync::mpsc::UnboundedReceiver<Notice>,
    stopped: tokio::sync::oneshot::Receiver<()>,
    json: bool,
) {
    let as_they_come = async {
        while let Some(notice) = received.recv().await {
            if print(&notice, json).is_err() {
                return false;
            }
        }
        false
    };
    let go_on = tokio::select! {
        go_on = as_they_come => go_on,
        _ = stopped => true,
    };
    if go_on {
        while let Ok(notice) = received.try_recv() {
            if print(&notice, json).is_err() {
                return;
            }
        }
    }
}

fn print(notice: &Notice, json: bool) -> std::io::Result<()> {
    match json {
        true => {
            let mut out = std::io::stdout().lock();
            writeln!(out, "{}", output::proxy::notice_json(notice))?;
            out.flush()
        }
        // One write, the newline in it: the controller the proxy runs writes to the same stderr,
        // and a line written in pieces could get its output in the middle.
        false => {
            let line = format!("{}\n", output::proxy::notice_line(notice));
            std::io::stderr().write_all(line.as_bytes())
        }
    }
}

/// The notices still to print, then the summary: on stderr, and with -o json as the last line.
async fn summarize(
    engine: &Arc<Engine>,
    printer: tokio::task::JoinHandle<()>,
    ran: std::time::Duration,
    json: bool,
) {
    let applied = engine.applied();
    let _ = printer.await;
    if applied.is_empty() {
        return;
    }
    if json {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{}", output::proxy::summary_json(&applied, ran));
        let _ = out.flush();
    }
    let _ = write!(
        std::io::stderr(),
        "{}",
        output::proxy::summary_text(&applied, ran)
    );
}

/// A kubeconfig whose one context reaches the cluster through the proxy at `url`, in
/// `namespace`. Its user's token is not a credential: the proxy drops whatever a client sends
/// and adds the user's own; it is there because kubectl asks for a user name and password on a
/// terminal when an https server's user has nothing.
fn kubeconfig(url: &str, authority: Option<&Authority>, namespace: &str) -> String {
    let ca = authority.map_or(String::new(), |a| {
        format!(
            "    certificate-authority-data: {}\n",
            base64::engine::general_purpose::STANDARD.encode(a.ca_pem.as_bytes())
        )
    });
    format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: kubectl-informer-proxy\n  cluster:\n    \
         server: {url}\n{ca}users:\n- name: kubectl-informer-proxy\n  user:\n    \
         token: not-a-credential-the-proxy-adds-yours\ncontexts:\n- \
         name: kubectl-informer-proxy\n  context:\n    cluster: kubectl-informer-proxy\n    \
         user: kubectl-informer-proxy\n    namespace: {namespace}\ncurrent-context: \
         kubectl-informer-proxy\n"
    )
}
