//! `proxy --explore`: the exploration (`proxy::explore`) wired to the flags, the cluster and the
//! output: each run is this binary's own `proxy`, connected as this one is, with `--seed 1`.

use super::workload::Asked;
use super::ProxyConfig;
use crate::bench::scratch::ScratchNamespace;
use crate::cluster::Cluster;
use crate::commands::GlobalConfig;
use crate::error::{Error, Result, EXIT_FINDING, EXIT_OK};
use crate::output::explore::{report_json, report_text, ExploreProgress};
use crate::proxy::explore::{Exploration, ExploreError, Lateness, Side};
use crate::proxy::fault::Fault;
use std::io::Write;

/// `--explore`'s settings: how late the faults make the controller's view, how many runs at once.
#[derive(Debug, Clone)]
pub struct Explore {
    pub late: Lateness,
    pub side: Side,
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
    let what = (asked, controller);
    let args = |namespace: &str, faults: &[Fault], state: &[String]| {
        child_args(global, what, (namespace, faults), state)
    };
    let namespaces = Scratch(&cluster);
    let exploration = Exploration {
        namespaces: &namespaces,
        args: &args,
        prefix: &prefix,
        dir: &dir,
        late: explore.late,
        side: explore.side.clone(),
        ends: global.limits.ends(),
        gives_up: global.limits.gives_up(),
    };
    let progress = ExploreProgress::new(config.json, crate::output::stderr_is_terminal());
    let explored = exploration.run(&progress).await;
    progress.finish();
    let explored = explored.map_err(|e| match e {
        ExploreError::Cancelled {
            why: crate::proxy::explore::Cancel::Stopped,
            ..
        } => Error::Stopped(crate::stop::exit_code()),
        ExploreError::Cancelled {
            why: crate::proxy::explore::Cancel::Timeout,
            ..
        } => Error::TimedOut(e.to_string()),
        e => Error::Failed(e.to_string()),
    })?;
    let repeat = repeat(&explored, &dir, &args);
    let text = match config.json {
        true => format!("{}\n", report_json(&explored, &explore.side, &repeat, &dir)),
        false => report_text(&explored, &explore.side, &repeat, &dir),
    };
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(Error::Output)?;
    Ok(match repeat.is_empty() {
        true => EXIT_OK,
        false => EXIT_FINDING,
    })
}

/// The runs' namespaces: scratch namespaces labelled as made by `explore`.
struct Scratch<'a>(&'a Cluster);

impl crate::proxy::explore::Namespaces for Scratch<'_> {
    fn create<'a>(
        &'a self,
        name: &'a str,
    ) -> futures::future::BoxFuture<'a, std::result::Result<(), crate::cluster::ClusterError>> {
        Box::pin(async move {
            ScratchNamespace::named(name.to_string(), "explore")
                .create(self.0)
                .await
        })
    }

    fn delete<'a>(&'a self, name: &'a str) -> futures::future::BoxFuture<'a, ()> {
        Box::pin(async move {
            let _ = ScratchNamespace::named(name.to_string(), "explore")
                .delete(self.0)
                .await;
        })
    }
}

/// The command line (after `kubectl informer`) that repeats each run that did not end the same,
/// against the baselines, in a namespace `NAMESPACE`.
fn repeat(
    explored: &crate::proxy::explore::Explored,
    dir: &std::path::Path,
    args: &crate::proxy::explore::ChildArgs<'_>,
) -> Vec<(usize, String)> {
    let compare: Vec<String> = (1..=2)
        .flat_map(|n| {
            let path = dir.join(format!("baseline-{n}.json"));
            ["--compare-state".to_string(), path.display().to_string()]
        })
        .collect();
    explored
        .differing()
        .map(|r| {
            let words = args("NAMESPACE", &r.faults, &compare);
            let quoted: Vec<String> = words.iter().map(|a| shell_quote(a)).collect();
            (r.number, quoted.join(" "))
        })
        .collect()
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

/// The arguments of one run of this binary's `proxy` (in `namespace`, with `faults`), the
/// workload's flags as given, `{namespace}` in the controller's arguments replaced.
fn child_args(
    global: &GlobalConfig,
    (asked, (program, args)): (&Asked, &(String, Vec<String>)),
    (namespace, faults): (&str, &[Fault]),
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
        out.extend(["--fault".to_string(), fault.text.clone()]);
    }
    out.extend([
        "--workload".to_string(),
        asked.command.clone(),
        "--settle".to_string(),
        crate::format::duration(asked.settle),
        "--settle-limit".to_string(),
        crate::format::duration(asked.settle_limit),
        "--state".to_string(),
        asked.state.join(","),
    ]);
    if asked.all_fields {
        out.push("--all-fields".to_string());
    }
    for path in &asked.ignored {
        out.extend(["--ignore-field".to_string(), path.clone()]);
    }
    out.extend(state_flags.iter().cloned());
    out.push("--".to_string());
    out.push(program.clone());
    out.extend(args.iter().map(|a| a.replace("{namespace}", namespace)));
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
