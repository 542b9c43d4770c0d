//! `conform`: the watch-contract checks on one resource, each PASS, FAIL or SKIP, then a summary.
//! Exit 0 every check that applies passed, 1 a check failed, 2 nothing checked, a skip not
//! allowed (`conform::judge` decides) or an error, 130 interrupted.

use super::{resolve_target, GlobalConfig};
use crate::bench::scratch;
use crate::cli::{ConformArgs, ReportFormat};
use crate::cluster::ApiResource;
use crate::conform::{
    self, CheckResult, Evidence, Identity, Limits, Report, RunResult, Status, Subject, Writer,
    CHECKS,
};
use crate::error::{Error, Result, EXIT_FINDING, EXIT_OK};
use crate::informer::listwatch::{ListOptions, ListWatch};
use crate::informer::object::Encoding;
use crate::output::{conform as print, tolerate_closed_pipe};
use crate::template::Template;
use std::io::Write;

/// How many objects conform creates before the checks (check 2 pages through them).
const OBJECTS: usize = 3;

/// `conform`'s arguments, validated.
#[derive(Debug, Clone)]
pub struct ConformConfig {
    pub resource: String,
    pub read_only: bool,
    /// `--allow-skips`: a skip does not fail the run.
    pub allow_skips: bool,
    pub template: Option<Template>,
    pub limits: Limits,
    pub output: ReportFormat,
}

impl ConformConfig {
    pub fn from_args(args: &ConformArgs, global: &GlobalConfig) -> Result<Self> {
        if !args.read_only && global.all_namespaces {
            return Err(Error::Usage(
                "-A without --read-only: conform writes in one namespace (a scratch namespace, \
                 or the one -n names); add --read-only to check all namespaces without writing"
                    .into(),
            ));
        }
        let template = match &args.template {
            Some(path) => Some(Template::load(path).map_err(Error::Usage)?),
            None => None,
        };
        let limits = Limits {
            initial_events: args.initial_events_timeout,
            delivery: args.delivery_limit,
        };
        for (value, flag) in [
            (limits.initial_events, "--initial-events-timeout"),
            (limits.delivery, "--delivery-limit"),
        ] {
            if value.is_zero() {
                return Err(Error::Usage(format!(
                    "{flag} 0: a check cannot wait for nothing; give a duration, e.g. 10s"
                )));
            }
        }
        Ok(ConformConfig {
            resource: args.resource.clone(),
            read_only: args.read_only,
            allow_skips: args.allow_skips,
            template,
            limits,
            output: args.output,
        })
    }
}

/// Runs `conform` and returns the exit code.
pub async fn exec(global: &GlobalConfig, config: ConformConfig) -> Result<u8> {
    let interrupt = crate::stop::requested();
    tokio::pin!(interrupt);
    let _ = futures::FutureExt::now_or_never(&mut interrupt);
    let target = tokio::select! {
        t = resolve_target(global, &config.resource, &["list", "watch"]) => t?,
        _ = &mut interrupt => return Ok(crate::stop::exit_code()),
    };
    let resource = target.resource.clone();
    let template = template(&config, &resource)?;
    if template.is_some() {
        check_writable(&resource)?;
    }
    let notice = |line: String| crate::output::say(&format!("conform: {line}"));
    let mut out = std::io::stdout().lock();
    let run = Run {
        cluster: &target.cluster,
        resource: &resource,
        template,
        limits: config.limits,
        text: config.output == ReportFormat::Text,
        all_evidence: global.verbose > 0,
        identity: identity(global, &target.cluster),
        allow_skips: config.allow_skips,
        notice: &notice,
    };
    let outcome = match (&run.template, &global.namespace) {
        // A namespace the user named: conform's objects there carry the run's label, which its
        // watches select, and are deleted at the end; nothing else there is touched.
        (Some(_), Some(ns)) => {
            let limits = &global.limits;
            super::existing_namespace_to_write(&target.cluster, ns, "conform writes", limits)
                .await?;
            let out = &mut out;
            scratch::labelled_in(
                &target.cluster,
                &resource,
                scratch::Labelled::new("conform", ns),
                "the checks' writes",
                &mut interrupt,
                &notice,
                move |labelled| run.checks(Some(ns.clone()), Some(labelled), out),
            )
            .await
        }
        (Some(_), None) => {
            let out = &mut out;
            scratch::around(
                &target.cluster,
                ("conform", "the checks' writes"),
                &mut interrupt,
                &notice,
                move |ns| run.checks(Some(ns), None, out),
            )
            .await
            .map_err(|e| forbidden_writes(e, &config.resource))?
        }
        (None, _) => tokio::select! {
            r = run.checks(target.namespace.clone(), None, &mut out) => Some(r),
            _ = &mut interrupt => None,
        },
    };
    let Some(report) = outcome else {
        return Ok(crate::stop::exit_code());
    };
    let report = report?;
    let written = match config.output {
        ReportFormat::Text => print::write_summary(&mut out, &report),
        ReportFormat::Json => serde_json::to_writer_pretty(&mut out, &report)
            .map_err(std::io::Error::from)
            .and_then(|_| writeln!(out)),
    };
    tolerate_closed_pipe(written.and_then(|_| out.flush())).map_err(Error::Output)?;
    match report.outcome.result {
        RunResult::Passed => Ok(EXIT_OK),
        RunResult::Failed => Ok(EXIT_FINDING),
        RunResult::NothingChecked | RunResult::Skipped => {
            Err(Error::NothingChecked(report.outcome.detail))
        }
    }
}

/// A write the server forbids (the scratch namespace) points to what needs none: the checks
/// that only read, with `--read-only`.
fn forbidden_writes(e: crate::cluster::ClusterError, resource: &str) -> Error {
    match e.status_code() {
        Some(403) => Error::Failed(format!(
            "{e}; or add --read-only to run only the checks of {resource} that read"
        )),
        _ => e.into(),
    }
}

/// Who the requests act as: `--as` (with `--as-group`), else the kubeconfig's user.
fn identity(global: &GlobalConfig, cluster: &crate::cluster::Cluster) -> Identity {
    let overrides = &global.selection.overrides;
    match &overrides.impersonate {
        Some(user) => Identity {
            user: user.clone(),
            groups: overrides.impersonate_groups.clone(),
            impersonated: true,
        },
        None => Identity {
            user: cluster.user.clone(),
            groups: Vec::new(),
            impersonated: false,
        },
    }
}

/// What conform creates its objects from: `--template`, which must be of the resource checked,
/// or for ConfigMaps its own; `None` with --read-only.
fn template(config: &ConformConfig, resource: &ApiResource) -> Result<Option<Template>> {
    Ok(match (&config.template, config.read_only) {
        (_, true) => None,
        (Some(t), false)
            if t.api_version() != resource.api_version() || t.kind() != resource.kind =>
        {
            return Err(Error::Usage(format!(
                "--template is a {} {} and conform checks {} ({} {}): give a manifest of the \
                 resource checked",
                t.api_version(),
                t.kind(),
                resource.qualified_name(),
                resource.api_version(),
                resource.kind
            )))
        }
        (Some(t), false) => Some(t.clone()),
        (None, false) if resource.group.is_empty() && resource.plural == "configmaps" => {
            Some(conform::default_template())
        }
        (None, false) => {
            return Err(Error::Usage(format!(
                "conform writes {} only with --template FILE (a manifest of one of its objects); \
                 without one it writes ConfigMaps; to check without writing add --read-only",
                resource.qualified_name()
            )))
        }
    })
}

/// Refuses to write a resource conform cannot: cluster-scoped (conform writes only in a
/// namespace), or without the create, patch and delete its checks make.
fn check_writable(resource: &ApiResource) -> Result<()> {
    if !resource.namespaced {
        return Err(Error::Usage(format!(
            "{} is cluster-scoped: conform writes only in a scratch namespace of its own; check \
             it with --read-only",
            resource.qualified_name()
        )));
    }
    if !["create", "patch", "delete"]
        .iter()
        .all(|v| resource.supports(v))
    {
        return Err(Error::Usage(format!(
            "{} cannot be created, patched and deleted (its verbs: {}): check it with \
             --read-only",
            resource.qualified_name(),
            resource.verbs.join(", ")
        )));
    }
    Ok(())
}

/// One run of the checks in one namespace (`None`: all, or cluster-scoped).
struct Run<'a> {
    cluster: &'a crate::cluster::Cluster,
    resource: &'a crate::cluster::ApiResource,
    /// What conform creates its objects from; `None` with --read-only.
    template: Option<Template>,
    limits: Limits,
    text: bool,
    all_evidence: bool,
    identity: Identity,
    allow_skips: bool,
    /// Where notices go: the line that says where the writes go, before the first.
    notice: &'a (dyn Fn(String) + Sync),
}

impl Run<'_> {
    /// The checks in `namespace`; with `labelled`, on the run's objects only (a namespace the
    /// user named, which holds others').
    async fn checks(
        mut self,
        namespace: Option<String>,
        labelled: Option<scratch::Labelled>,
        out: &mut impl Write,
    ) -> Result<Report> {
        let lw = ListWatch {
            cluster: self.cluster.clone(),
            resource: self.resource.clone(),
            namespace: namespace.clone(),
            label_selector: labelled.as_ref().map(scratch::Labelled::selector),
            field_selector: None,
            metadata_only: false,
            encoding: Encoding::Json,
            keep: crate::informer::object::Keep::Whole,
        };
        // A resource that cannot even be listed is an error, not twelve SKIPs.
        lw.list_page(&ListOptions {
            limit: Some(1),
            ..ListOptions::default()
        })
        .await?;
        let writer = match (self.template.take(), &namespace) {
            (Some(template), Some(ns)) => Some(self.writer(template, ns, labelled.as_ref()).await?),
            _ => None,
        };
        let selector = labelled.as_ref().map(scratch::Labelled::selector);
        let scratch = writer.is_some() && selector.is_none();
        let writes = writer.is_some();
        let mut subject = Subject {
            lw,
            writer,
            limits: self.limits,
        };
        if self.text {
            print::write_header(
                out,
                &print::Header {
                    resource: &self.resource.qualified_name(),
                    api_version: &self.resource.api_version(),
                    server: &self.cluster.server,
                    context: &self.cluster.context,
                    identity: &self.identity,
                    namespace: namespace.as_deref(),
                    scratch,
                    labelled: selector.as_deref(),
                },
            )
            .map_err(Error::Output)?;
        }
        let mut written = Ok(());
        let checks = conform::run(&mut subject, |result: &CheckResult| {
            if self.text && written.is_ok() {
                written =
                    print::write_check(out, result, self.all_evidence).and_then(|_| out.flush());
            }
        })
        .await;
        tolerate_closed_pipe(written).map_err(Error::Output)?;
        Ok(report(
            self.cluster,
            &subject.lw,
            Scope {
                namespace,
                scratch_namespace: scratch,
                read_only: !writes,
            },
            (self.identity, self.allow_skips),
            checks,
        ))
    }

    /// The writer of conform's objects in `namespace` (with `labelled`, each carrying the run's
    /// label), with the objects the checks need created.
    async fn writer(
        &self,
        template: Template,
        namespace: &str,
        labelled: Option<&scratch::Labelled>,
    ) -> Result<Writer> {
        let mut writer = Writer::new(
            self.cluster.clone(),
            self.resource.clone(),
            namespace.to_string(),
            template,
        );
        writer.run_label = labelled.map(|l| (scratch::RUN_LABEL_KEY.to_string(), l.run.clone()));
        if let Some(labelled) = labelled {
            labelled.begin_writing(self.notice);
        }
        let mut ev = Evidence::default();
        for i in 1..=OBJECTS {
            let name = writer.name(&i.to_string());
            writer.create(&mut ev, &name).await.map_err(|why| {
                Error::Watch(format!(
                    "cannot create the objects the checks need: {}",
                    why.into_text()
                ))
            })?;
        }
        Ok(writer)
    }
}

/// Where a run's checks ran, and whether it wrote.
struct Scope {
    namespace: Option<String>,
    scratch_namespace: bool,
    read_only: bool,
}

fn report(
    cluster: &crate::cluster::Cluster,
    lw: &ListWatch,
    scope: Scope,
    (identity, allow_skips): (Identity, bool),
    checks: Vec<CheckResult>,
) -> Report {
    let outcome = conform::judge(&checks, allow_skips);
    let mut report = Report {
        schema_version: conform::SCHEMA_VERSION,
        resource: lw.resource.qualified_name(),
        api_version: lw.resource.api_version(),
        server: cluster.server.clone(),
        context: cluster.context.clone(),
        identity,
        namespace: scope.namespace,
        scratch_namespace: scope.scratch_namespace,
        read_only: scope.read_only,
        allow_skips,
        checks,
        passed: 0,
        failed: 0,
        skipped: 0,
        outcome,
    };
    report.passed = report.count(Status::Pass);
    report.failed = report.count(Status::Fail);
    report.skipped = report.count(Status::Skip);
    debug_assert_eq!(report.checks.len(), CHECKS.len());
    report
}
