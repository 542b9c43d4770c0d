//! `proxy --explore`: faults chosen from what the controller did, without hints. Two fault-free
//! runs of the workload are the baselines; their trace (the writes the server committed for the
//! controller, the resources it watched) makes the plan: a crash right after each kind of write,
//! a restart onto a stale view of each resource watched, coalesced events on each. Each run is
//! this binary's own `proxy` with those faults, in a namespace of its own, compared with the
//! baselines; the report says which differ, and the command that repeats each.

use super::workload::Asked;
use super::ProxyConfig;
use crate::bench::scratch::ScratchNamespace;
use crate::cluster::Cluster;
use crate::commands::GlobalConfig;
use crate::error::{Error, Result, EXIT_FINDING, EXIT_OK};
use crate::proxy::state::State;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// `--explore`'s settings: how far behind a stale view is, how long a coalesce gathers.
#[derive(Debug, Clone, Copy)]
pub struct Explore {
    pub lag: Duration,
    pub window: Duration,
}

/// One run of the plan and what it found.
struct Ran {
    faults: Vec<String>,
    /// Its `--settle`: see [`settle`].
    settle: Duration,
    namespace: String,
    /// `None`: the same end state; else the differences, one line each.
    differences: Option<Vec<String>>,
}

/// The plan from a baseline's trace: each a run's faults.
fn plan(baseline: &State, explore: Explore) -> Vec<Vec<String>> {
    let mut runs = Vec::new();
    let crash_after = |key: &str| {
        let (verb, resource) = key.split_once(' ').unwrap_or((key, ""));
        let resource = resource.split('/').next().unwrap_or(resource);
        format!("crash:after={verb},resource={resource}")
    };
    let mut crashes: Vec<String> = Vec::new();
    for crash in baseline.write_order.iter().map(|k| crash_after(k)) {
        if !crashes.contains(&crash) {
            crashes.push(crash);
        }
    }
    runs.extend(crashes.iter().map(|c| vec![c.clone()]));
    // A restart after the last kind of write, onto a view of each resource watched that lags.
    if let Some(last) = crashes.last() {
        for resource in &baseline.watched {
            let stale = format!(
                "stale:by={},on=restart,resource={resource}",
                crate::format::duration(explore.lag)
            );
            runs.push(vec![last.clone(), stale]);
        }
    }
    for resource in &baseline.watched {
        runs.push(vec![format!(
            "coalesce:window={},resource={resource}",
            crate::format::duration(explore.window)
        )]);
    }
    runs
}

/// How long a run with `faults` waits after the workload before it takes the end state: the
/// workload's `--settle`, and as long again as a stale view lags or a coalesce holds an event,
/// so that the controller has been told of everything the workload did (a difference that only
/// says its view was still behind is none).
fn settle(asked: &Asked, faults: &[String], explore: Explore) -> Duration {
    let late = |prefix: &str| faults.iter().any(|f| f.starts_with(prefix));
    let mut late_by = Duration::ZERO;
    for (prefix, by) in [("stale:", explore.lag), ("coalesce:", explore.window)] {
        if late(prefix) {
            late_by = late_by.max(by);
        }
    }
    asked.settle + late_by
}

/// Runs the exploration: exit 1 when a run's end state differs from the baselines'.
pub async fn run(global: &GlobalConfig, config: &ProxyConfig, explore: Explore) -> Result<u8> {
    let (Some(asked), Some(controller)) = (&config.workload, &config.controller) else {
        return Err(Error::Usage(
            "--explore needs --workload, --state and the controller after --".into(),
        ));
    };
    if global.selection.overrides.token.is_some() {
        return Err(Error::Usage(
            "--explore runs each proxy as a process of its own, and puts no --token on a command \
             line (other users of the machine can read it): name a kubeconfig user that has the \
             token instead (--user, or --context)"
                .into(),
        ));
    }
    let cluster = Cluster::connect(&global.selection, global.transport).await?;
    let prefix = global
        .namespace
        .clone()
        .unwrap_or_else(|| cluster.default_namespace.clone());
    let dir = tempfile::Builder::new()
        .prefix("kubectl-informer-explore-")
        .tempdir()
        .map_err(|e| Error::File(format!("cannot make a directory for the runs: {e}")))?
        .keep();
    let started = std::time::Instant::now();
    let mut made = Vec::new();
    let result = explore_in(
        global,
        &cluster,
        (asked, controller),
        (&prefix, &dir),
        explore,
        &mut made,
    )
    .await;
    for namespace in made {
        let _ = ScratchNamespace::named(namespace, "explore")
            .delete(&cluster)
            .await;
    }
    let ran = result?;
    print!(
        "{}",
        report(&ran, started.elapsed(), &dir, (asked, controller), global)
    );
    Ok(match ran.iter().any(|r| r.differences.is_some()) {
        true => EXIT_FINDING,
        false => EXIT_OK,
    })
}

/// The baselines, then the plan's runs; the namespaces made are pushed to `made`.
async fn explore_in(
    global: &GlobalConfig,
    cluster: &Cluster,
    (asked, controller): (&Asked, &(String, Vec<String>)),
    (prefix, dir): (&str, &Path),
    explore: Explore,
    made: &mut Vec<String>,
) -> Result<Vec<Ran>> {
    let base: Vec<PathBuf> = (1..=2)
        .map(|n| dir.join(format!("baseline-{n}.json")))
        .collect();
    for (n, path) in base.iter().enumerate() {
        let namespace = namespace(cluster, &format!("{prefix}-base-{}", n + 1), made).await?;
        let save = ["--save-state".to_string(), path.display().to_string()];
        let run = (namespace.as_str(), &[][..], asked.settle);
        let out = child(global, (asked, controller), run, &save, dir).await?;
        if out.code != Some(0) {
            return Err(Error::Failed(format!(
                "the fault-free run {} in {namespace} ended with exit {:?}: {} (its log: {})",
                n + 1,
                out.code,
                out.last_line,
                out.log.display()
            )));
        }
    }
    let text = std::fs::read(&base[0]).map_err(|e| Error::File(e.to_string()))?;
    let baseline: State =
        serde_json::from_slice(&text).map_err(|e| Error::Failed(e.to_string()))?;
    let compare: Vec<String> = base
        .iter()
        .flat_map(|p| ["--compare-state".to_string(), p.display().to_string()])
        .collect();
    let mut ran = Vec::new();
    for (i, faults) in plan(&baseline, explore).into_iter().enumerate() {
        let namespace = namespace(cluster, &format!("{prefix}-run-{}", i + 1), made).await?;
        let settle = settle(asked, &faults, explore);
        let run = (namespace.as_str(), &faults[..], settle);
        let out = child(global, (asked, controller), run, &compare, dir).await?;
        let differences = match (out.code, out.verdict) {
            (Some(0), _) => None,
            (_, Some(lines)) => Some(lines),
            (code, None) => Some(vec![format!(
                "exit {code:?}: {} (its log: {})",
                out.last_line,
                out.log.display()
            )]),
        };
        ran.push(Ran {
            faults,
            settle,
            namespace,
            differences,
        });
    }
    Ok(ran)
}

/// Makes namespace `name` for one run (labelled as made by `explore`).
async fn namespace(cluster: &Cluster, name: &str, made: &mut Vec<String>) -> Result<String> {
    ScratchNamespace::named(name.to_string(), "explore")
        .create(cluster)
        .await?;
    made.push(name.to_string());
    Ok(name.to_string())
}

/// What one child run left: its exit code, its verdict's differences (one line each), the
/// last line of its stderr, and where its log is.
struct ChildOut {
    code: Option<i32>,
    verdict: Option<Vec<String>>,
    last_line: String,
    log: PathBuf,
}

/// The flags that make a run of this binary connect as this one does: the kubeconfig, its
/// selection and overrides (a `--token` is refused before: see [`run`]), the transport's limits
/// where they are not the defaults, and `-v`.
fn connection_args(global: &GlobalConfig) -> Vec<String> {
    let mut out = global.selection.args();
    let transport = global.transport;
    let limit = match (transport.request_timeout, transport.response_headers) {
        (Some(d), _) => Some(crate::format::duration(d)),
        (None, None) => Some("0".to_string()),
        (None, Some(_)) => None,
    };
    let health = match transport.health_check {
        None => Some("0".to_string()),
        Some(d) if d != crate::cluster::DEFAULT_HEALTH_CHECK => Some(crate::format::duration(d)),
        Some(_) => None,
    };
    for (flag, value) in [("--request-timeout", limit), ("--health-check", health)] {
        if let Some(value) = value {
            out.extend([flag.to_string(), value]);
        }
    }
    if global.verbose > 0 {
        out.push(format!("-v={}", global.verbose));
    }
    out
}

/// The arguments of one run of this binary's `proxy` (in `namespace`, with `faults`, settling
/// `settle`), `{namespace}` in the controller's arguments replaced.
fn child_args(
    global: &GlobalConfig,
    (asked, (program, args)): (&Asked, &(String, Vec<String>)),
    (namespace, faults, settle): (&str, &[String], Duration),
    state_flags: &[String],
) -> Vec<String> {
    let mut out = connection_args(global);
    out.extend(
        [
            "proxy", "-p", "0", "-o", "json", "--seed", "1", "-n", namespace,
        ]
        .map(String::from),
    );
    for fault in faults {
        out.extend(["--fault".to_string(), fault.clone()]);
    }
    out.extend([
        "--workload".to_string(),
        asked.command.clone(),
        "--settle".to_string(),
        crate::format::duration(settle),
        "--state".to_string(),
        asked.state.join(","),
    ]);
    out.extend(state_flags.iter().cloned());
    out.push("--".to_string());
    out.push(program.clone());
    out.extend(args.iter().map(|a| a.replace("{namespace}", namespace)));
    out
}

/// One run of this binary's `proxy`, in a process group of its own, its output kept in `dir`.
/// Ctrl-C, SIGTERM, `--for` and `--timeout` end it as they end the proxy (SIGTERM, which stops
/// its controller, SIGKILL after the grace period) and the exploration with it.
async fn child(
    global: &GlobalConfig,
    what: (&Asked, &(String, Vec<String>)),
    run: (&str, &[String], Duration),
    state_flags: &[String],
    dir: &Path,
) -> Result<ChildOut> {
    let namespace = run.0;
    let exe = std::env::current_exe()
        .map_err(|e| Error::Failed(format!("cannot find this program to run it again: {e}")))?;
    let log = dir.join(format!("{namespace}.log"));
    let mut command = tokio::process::Command::new(exe);
    command
        .args(child_args(global, what, run, state_flags))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    #[cfg(unix)]
    command.process_group(0);
    let mut child = command
        .spawn()
        .map_err(|e| Error::Failed(format!("cannot run a proxy for {namespace}: {e}")))?;
    let stdout = tokio::spawn(read_all(child.stdout.take()));
    let stderr = tokio::spawn(read_all(child.stderr.take()));
    let unfinished = |flag: &str| {
        format!(
            "{flag} ended the exploration during the run in {namespace}, before its plan was done (the output of the runs so far is in {})",
            dir.display()
        )
    };
    let ended = tokio::select! {
        biased;
        _ = crate::stop::requested() => Err(Error::Stopped(crate::stop::exit_code())),
        _ = crate::commands::sleep_until(global.limits.ends()) => Err(Error::Failed(unfinished("--for"))),
        _ = crate::commands::sleep_until(global.limits.gives_up()) => Err(Error::TimedOut(unfinished("--timeout"))),
        status = child.wait() => Ok(status),
    };
    let status = match ended {
        Ok(status) => status.map_err(|e| Error::Failed(format!("the run in {namespace}: {e}")))?,
        Err(e) => {
            crate::proxy::controller::stop_group(&mut child).await;
            return Err(e);
        }
    };
    let (stdout, stderr) = (
        stdout.await.unwrap_or_default(),
        stderr.await.unwrap_or_default(),
    );
    let _ = std::fs::write(&log, [&stdout[..], &stderr[..]].concat());
    let stderr = String::from_utf8_lossy(&stderr);
    let last_line = stderr
        .lines()
        .rev()
        .find(|l| l.starts_with("error:"))
        .or_else(|| stderr.lines().last())
        .unwrap_or("")
        .to_string();
    let verdict = String::from_utf8_lossy(&stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|v| v["type"] == "verdict")
        .map(|v| differences(&v));
    Ok(ChildOut {
        code: status.code(),
        verdict,
        last_line,
        log,
    })
}

/// All that `pipe` gives until it ends.
async fn read_all(pipe: Option<impl tokio::io::AsyncRead + Unpin>) -> Vec<u8> {
    use tokio::io::AsyncReadExt;
    let mut out = Vec::new();
    if let Some(mut pipe) = pipe {
        let _ = pipe.read_to_end(&mut out).await;
    }
    out
}

/// A verdict line's differences, one line each (`secrets deletes: 0 -> 1`).
fn differences(verdict: &serde_json::Value) -> Vec<String> {
    let none = Vec::new();
    verdict["differences"]
        .as_array()
        .unwrap_or(&none)
        .iter()
        .map(|d| {
            let (resource, name, what) = (
                d["resource"].as_str().unwrap_or(""),
                d["name"].as_str().unwrap_or(""),
                d["difference"].as_str().unwrap_or(""),
            );
            match what {
                "creates" | "deletes" => {
                    format!(
                        "{resource} {what}: {} -> {}",
                        d["baselineCount"], d["runCount"]
                    )
                }
                "content" => format!("{resource} {name}: other content"),
                "workload" => format!(
                    "the workload ended with {}",
                    d["status"].as_str().unwrap_or("a failure")
                ),
                _ => format!("{resource} {name}: {what} ({})", d["count"]),
            }
        })
        .collect()
}

/// The report: one row per run, then the command that repeats each run that differs.
fn report(
    ran: &[Ran],
    took: Duration,
    dir: &Path,
    what: (&Asked, &(String, Vec<String>)),
    global: &GlobalConfig,
) -> String {
    let differing = ran.iter().filter(|r| r.differences.is_some()).count();
    let mut out = format!(
        "Explored in {}: 2 fault-free runs, then {} from their trace; {differing} with another end state\n",
        crate::format::human(took),
        crate::format::count(ran.len() as u64, "run")
    );
    let mut table = crate::output::table::boxed();
    table.set_header(["#", "FAULTS", "END STATE"]);
    for (i, r) in ran.iter().enumerate() {
        let end = match &r.differences {
            None => "the same".to_string(),
            Some(d) => d.join("; "),
        };
        table.add_row([(i + 1).to_string(), r.faults.join(" "), end]);
    }
    out.push_str(&table.to_string());
    out.push('\n');
    for (i, r) in ran
        .iter()
        .enumerate()
        .filter(|(_, r)| r.differences.is_some())
    {
        let compare: Vec<String> = (1..=2)
            .flat_map(|n| {
                let path = dir.join(format!("baseline-{n}.json"));
                ["--compare-state".to_string(), path.display().to_string()]
            })
            .collect();
        let args = child_args(global, what, ("NAMESPACE", &r.faults, r.settle), &compare);
        let quoted: Vec<String> = args.iter().map(|a| shell_quote(a)).collect();
        out.push_str(&format!(
            "run {} (in {}) again, in a new namespace NAMESPACE: kubectl informer {}\n",
            i + 1,
            r.namespace,
            quoted.join(" ")
        ));
    }
    out.push_str(&format!(
        "The baselines and each run's output are in {}\n",
        dir.display()
    ));
    out
}

/// `s` as a POSIX shell reads it back as one word.
fn shell_quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_=.,/:@%+".contains(&b));
    match plain {
        true => s.to_string(),
        false => format!("'{}'", s.replace('\'', "'\\''")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The global config of `kubectl-informer ARGS version`.
    fn config(args: &[&str]) -> GlobalConfig {
        let mut all = vec!["kubectl-informer".to_string()];
        all.extend(args.iter().map(|a| a.to_string()));
        all.push("version".into());
        let cli = crate::cli::parse_from(all).unwrap();
        GlobalConfig::from_args(&cli.global).unwrap()
    }

    #[test]
    fn each_run_connects_with_every_connection_flag_this_one_was_given() {
        let dir = tempfile::tempdir().unwrap();
        let file = |name: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, "").unwrap();
            path.display().to_string()
        };
        let (ca, cert, key) = (file("ca.crt"), file("me.crt"), file("me.key"));
        let (ca, cert, key) = (
            format!("--certificate-authority={ca}"),
            format!("--client-certificate={cert}"),
            format!("--client-key={key}"),
        );
        let given = [
            "--kubeconfig=/tmp/my configs/k.yaml",
            "--context=dev",
            "--cluster=c1",
            "--user=me",
            "--server=https://10.0.0.1:6443",
            &ca,
            "--tls-server-name=api.example",
            &cert,
            &key,
            "--as=jane",
            "--as-group=dev ops",
            "--as-group=qa",
            "--as-uid=42",
            "--disable-compression",
            "--request-timeout=1.5s",
            "--health-check=0",
            "-v=2",
        ];
        let ours = config(&given);
        let words = connection_args(&ours);
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        let theirs = config(&words);
        assert_eq!(theirs.selection.path, ours.selection.path);
        assert_eq!(
            (
                &theirs.selection.context,
                &theirs.selection.cluster,
                &theirs.selection.user
            ),
            (
                &ours.selection.context,
                &ours.selection.cluster,
                &ours.selection.user
            )
        );
        assert!(theirs.selection.overrides == ours.selection.overrides);
        assert_eq!(theirs.transport, ours.transport);
        assert_eq!(theirs.verbose, 2);
        // The defaults need no flags.
        assert!(connection_args(&config(&[])).is_empty());
        let insecure = config(&["--insecure-skip-tls-verify", "--request-timeout=0"]);
        let words = connection_args(&insecure);
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        let again = config(&words);
        assert!(again.selection.overrides == insecure.selection.overrides);
        assert_eq!(again.transport, insecure.transport);
    }

    #[test]
    fn the_plan_is_a_crash_after_each_kind_of_write_a_stale_restart_and_a_coalesce_per_watch() {
        let mut baseline = State::of("demo", vec![]);
        baseline.write_order = vec![
            "create secrets".into(),
            "patch configmaps".into(),
            "update deployments.apps/status".into(),
        ];
        baseline.watched = vec!["configmaps".into(), "secrets".into()];
        let explore = Explore {
            lag: Duration::from_secs(45),
            window: Duration::from_secs(10),
        };
        let plan = plan(&baseline, explore);
        let last = "crash:after=update,resource=deployments.apps";
        assert_eq!(
            plan,
            [
                vec!["crash:after=create,resource=secrets".to_string()],
                vec!["crash:after=patch,resource=configmaps".to_string()],
                vec![last.to_string()],
                vec![
                    last.into(),
                    "stale:by=45s,on=restart,resource=configmaps".into()
                ],
                vec![
                    last.into(),
                    "stale:by=45s,on=restart,resource=secrets".into()
                ],
                vec!["coalesce:window=10s,resource=configmaps".to_string()],
                vec!["coalesce:window=10s,resource=secrets".to_string()],
            ]
        );
        for faults in &plan {
            for fault in faults {
                crate::proxy::fault::Fault::parse(fault).unwrap();
            }
        }
    }

    #[test]
    fn a_run_with_a_late_view_settles_as_much_longer_as_it_is_late() {
        let asked = Asked {
            command: "true".into(),
            settle: Duration::from_secs(2),
            state: vec!["secrets".into()],
            save: None,
            baselines: vec![],
        };
        let explore = Explore {
            lag: Duration::from_secs(45),
            window: Duration::from_secs(10),
        };
        let after = |faults: &[&str]| {
            let faults: Vec<String> = faults.iter().map(|f| f.to_string()).collect();
            settle(&asked, &faults, explore).as_secs()
        };
        assert_eq!(after(&[]), 2);
        assert_eq!(after(&["crash:after=create,resource=secrets"]), 2);
        assert_eq!(
            after(&[
                "crash:after=create,resource=secrets",
                "stale:by=45s,on=restart,resource=secrets"
            ]),
            47
        );
        assert_eq!(after(&["coalesce:window=10s,resource=secrets"]), 12);
    }

    #[test]
    fn a_word_is_quoted_only_when_the_shell_would_split_or_expand_it() {
        assert_eq!(shell_quote("--fault"), "--fault");
        assert_eq!(
            shell_quote("crash:after=create,resource=secrets"),
            "crash:after=create,resource=secrets"
        );
        assert_eq!(shell_quote("sh ./workload.sh"), "'sh ./workload.sh'");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
        assert_eq!(shell_quote(""), "''");
    }
}
