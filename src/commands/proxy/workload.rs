//! `proxy --workload`'s flags checked and resolved, and the verdict: the end state saved,
//! compared with the baselines, said (a table, or a JSON line) and turned into the exit code.

use crate::cli::ProxyArgs;
use crate::cluster::{resolve, ApiResource, Cluster};
use crate::error::{Error, Result, EXIT_FINDING, EXIT_OK};
use crate::output;
use crate::proxy::engine::Engine;
use crate::proxy::state::{compare, State};
use crate::proxy::workload::{parse_state, Plan};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// `--workload` and what goes with it, as given on the command line.
#[derive(Debug, Clone)]
pub struct Asked {
    pub command: String,
    pub settle: Duration,
    pub settle_limit: Duration,
    pub state: Vec<String>,
    pub save: Option<PathBuf>,
    pub baselines: Vec<PathBuf>,
    /// `--all-fields`: every field compared, not only the controller's.
    pub all_fields: bool,
    /// `--ignore-field`: paths left out of the comparison, each starting with `.`.
    pub ignored: Vec<String>,
}

/// A workload ready to run: its plan, the baselines read, where to save.
#[derive(Debug, Clone)]
pub struct Ready {
    pub plan: Plan,
    pub baselines: Vec<State>,
    pub save: Option<PathBuf>,
    pub ignored: Vec<String>,
}

impl Asked {
    /// The flags checked together: the state flags need a workload, saving or comparing needs
    /// `--state`, and a workload (unless explored) needs its end state saved or compared.
    pub fn from_args(args: &ProxyArgs) -> Result<Option<Asked>> {
        let (state, save, baselines) = (&args.state, args.save_state.as_ref(), &args.compare_state);
        let Some(command) = &args.workload else {
            if !state.is_empty() || save.is_some() || !baselines.is_empty() {
                return Err(Error::Usage("--state, --save-state and --compare-state take the end state a workload leaves: give the workload with --workload 'COMMAND'".into()));
            }
            if args.all_fields || !args.ignore_field.is_empty() {
                return Err(Error::Usage("--all-fields and --ignore-field choose what of the end state a workload leaves is compared: give the workload with --workload 'COMMAND' and --state RESOURCES".into()));
            }
            return Ok(None);
        };
        if state.is_empty() && (save.is_some() || !baselines.is_empty()) {
            return Err(Error::Usage("--save-state and --compare-state need the resources whose end state they keep: name them with --state, e.g. --state secrets,configmaps".into()));
        }
        // --explore takes the end state itself; else a workload whose end state is neither
        // saved nor compared would compare nothing.
        if !args.explore {
            if state.is_empty() {
                return Err(Error::Usage("--workload leaves an end state to save or compare: name its resources with --state (e.g. --state secrets,configmaps) and give --save-state FILE or --compare-state FILE".into()));
            }
            if save.is_none() && baselines.is_empty() {
                return Err(Error::Usage("--workload --state takes an end state to keep or compare: give --save-state FILE (a fault-free baseline) or --compare-state FILE (a run under faults), or --explore".into()));
            }
        }
        let ignored = args
            .ignore_field
            .iter()
            .map(|path| field_path(path))
            .collect::<Result<Vec<String>>>()?;
        Ok(Some(Asked {
            command: command.clone(),
            settle: args.settle,
            settle_limit: args.settle_limit,
            state: state.to_vec(),
            save: save.cloned(),
            baselines: baselines.to_vec(),
            all_fields: args.all_fields,
            ignored,
        }))
    }

    /// Ready to run: the resources resolved through `discovered`, the baselines read, the file
    /// to save into checked (refused when it exists, as every file a command writes; made only
    /// once there is a state, so that a run that fails leaves none).
    pub fn ready(
        &self,
        discovered: &[ApiResource],
        namespace: &str,
        kubeconfig: Option<&PathBuf>,
    ) -> Result<Ready> {
        let resources = self
            .state
            .iter()
            .map(|name| {
                resolve(name, discovered)
                    .cloned()
                    .map_err(|e| Error::Usage(format!("--state {name}: {e}")))
            })
            .collect::<Result<Vec<ApiResource>>>()?;
        let names: Vec<String> = resources.iter().map(ApiResource::qualified_name).collect();
        let baselines = self
            .baselines
            .iter()
            .map(|path| load(path, &names, self.all_fields))
            .collect::<Result<Vec<State>>>()?;
        if let Some(path) = self.save.as_ref().filter(|p| p.exists()) {
            return Err(Error::File(format!(
                "cannot create --save-state file {}: it exists: name a new file (no run overwrites one)",
                path.display()
            )));
        }
        let plan = Plan {
            command: self.command.clone(),
            settle: self.settle,
            settle_limit: self.settle_limit,
            all_fields: self.all_fields,
            await_controller: false,
            resources,
            namespace: namespace.to_string(),
            kubeconfig: kubeconfig.cloned(),
        };
        Ok(Ready {
            plan,
            baselines,
            save: self.save.clone(),
            ignored: self.ignored.clone(),
        })
    }
}

/// `--ignore-field PATH` as the verdict writes paths: starting with `.` (added when left out),
/// a field name or a `["quoted key"]` or `[item]` after each dot.
fn field_path(path: &str) -> Result<String> {
    let path = match path.starts_with(['.', '[']) {
        true => path.to_string(),
        false => format!(".{path}"),
    };
    let broken = path.len() < 2
        || path.ends_with('.')
        || path.contains("..")
        || path.matches('[').count() != path.matches(']').count();
    match broken {
        true => Err(Error::Usage(format!(
            "--ignore-field {path:?}: not a field path: write it as the verdict names it, e.g. .spec.nodeName, .metadata.annotations[\"x/count\"] or .spec.containers[web].image"
        ))),
        false => Ok(path),
    }
}

/// A baseline (`--compare-state FILE`), made of `resources`.
fn load(path: &Path, resources: &[String], all_fields: bool) -> Result<State> {
    let bad = |why: String| {
        Error::File(format!(
            "cannot use --compare-state {}: {why}",
            path.display()
        ))
    };
    let text = std::fs::read(path).map_err(|e| bad(e.to_string()))?;
    parse_state(&text, resources, all_fields).map_err(bad)
}

/// Runs the workload, saves its end state, and says what it is against the baselines: exit 1
/// when it differs. Never returns without a workload.
pub async fn verdict(
    ready: Option<&Ready>,
    cluster: &Cluster,
    engine: &Engine,
    json: bool,
) -> Result<u8> {
    let Some(ready) = ready else {
        return std::future::pending().await;
    };
    let (state, settled) = crate::proxy::workload::run(&ready.plan, cluster, engine)
        .await
        .map_err(|e| Error::Failed(e.to_string()))?;
    if let Some(status) = state.workload_failed.as_ref() {
        if ready.save.is_some() || ready.baselines.is_empty() {
            let kept = match ready.save.is_some() {
                true => "no end state is saved: a baseline is a run whose workload succeeded",
                false => "fix the workload, or compare with --compare-state to count a failure as a difference",
            };
            return Err(Error::Failed(format!(
                "the workload {:?} ended with {status}: {kept}",
                ready.plan.command
            )));
        }
    }
    if let Some(path) = &ready.save {
        drop(super::super::create_new_file("--save-state", path)?);
        let mut text =
            serde_json::to_vec_pretty(&state).map_err(|e| Error::Failed(e.to_string()))?;
        text.push(b'\n');
        output::file::write_whole(path, &text).map_err(|e| {
            Error::File(format!("cannot write --save-state {}: {e}", path.display()))
        })?;
        let line = output::proxy::saved_line(&state, &ready.plan.namespace, path);
        let _ = std::io::stderr().write_all(line.as_bytes());
    }
    if ready.baselines.is_empty() {
        return Ok(EXIT_OK);
    }
    let verdict = compare(&ready.baselines, &state, &ready.ignored);
    let resources: Vec<String> = (ready.plan.resources.iter())
        .map(crate::cluster::ApiResource::qualified_name)
        .collect();
    let of = output::proxy::VerdictOf {
        namespace: &ready.plan.namespace,
        resources: &resources,
        baselines: ready.baselines.len(),
        managers: &state.managers,
        all_fields: state.all_fields,
        settled,
        settle_limit: ready.plan.settle_limit,
    };
    let text = match json {
        true => format!("{}\n", output::proxy::verdict_json(&verdict, &of)),
        false => output::proxy::verdict_text(&verdict, &of),
    };
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(Error::Output)?;
    Ok(match verdict.differences.is_empty() {
        true => EXIT_OK,
        false => EXIT_FINDING,
    })
}
