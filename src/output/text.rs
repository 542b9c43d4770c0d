//! Human text: one aligned line per event on stdout (and per write's reaction, `tail --react`),
//! notices on stderr.

use super::labels::LabelColumns;
use super::tabwriter::TabWriter;
use super::tail_diff::write_unified;
use super::tail_react::{describe_reaction, reaction_resource_version};
use super::transition::describe_notice;
use crate::format::local_time;
use crate::informer::object::split_key;
use crate::recording::{BookmarkEvent, EventPrinter, Notice, ObjectEvent, Origin, ReactionEvent};
use std::io::Write;
use std::time::SystemTime;

const RESET: &str = "\x1b[0m";

/// Prints events as `TIME TYPE RV NAMESPACE/NAME [origin] [changes]` (wide: with kind, uid,
/// generation and the delay from arrival to print), each followed by its `--diff` if it has one,
/// notices as lines on `err`. A stream of several resources names each object as kubectl does (`NAMESPACE  deployment.apps/NAME`), and
/// each bookmark and notice by its resource.
pub struct TextPrinter<O: Write, E: Write> {
    out: O,
    err: E,
    color: bool,
    wide: bool,
    /// The stream merges several resources: say which one each line is about.
    several: bool,
    /// Column width of resourceVersions, grown to the widest seen so columns stay aligned.
    rv_width: usize,
    /// `-L` and `--show-labels`: columns after each object's, aligned from its name on.
    labels: LabelColumns,
    /// Whether the columns are headed (not `--no-headers`), and the header was printed.
    headers: bool,
    headed: bool,
    /// With label columns, the lines not yet written: the objects that exist at the start are
    /// held, to be aligned together (as kubectl's get -w aligns them) once something comes
    /// after them.
    table: TabWriter,
}

impl<O: Write, E: Write> TextPrinter<O, E> {
    pub fn new(out: O, err: E, color: bool, wide: bool) -> Self {
        TextPrinter {
            out,
            err,
            color,
            wide,
            several: false,
            rv_width: 8,
            labels: LabelColumns::default(),
            headers: false,
            headed: false,
            table: TabWriter::new(0, 2),
        }
    }

    /// With label columns after each object (`-L`, `--show-labels`), headed unless not
    /// `headers`: the line's columns are then aligned and named by a header line.
    pub fn with_labels(mut self, labels: LabelColumns, headers: bool) -> Self {
        self.labels = labels;
        self.headers = headers;
        self
    }

    /// What the table holds written out.
    fn release(&mut self) -> std::io::Result<()> {
        if !self.table.is_empty() {
            let text = self.table.flush();
            self.out.write_all(text.as_bytes())?;
        }
        Ok(())
    }

    /// An object line with label columns: `prefix`, then its cells (`NAME`, wide's, the
    /// labels') aligned, then `rest` (its origin and changes); the header first, once. The
    /// objects that exist at the start are held, to be aligned together.
    fn labelled(
        &mut self,
        origin: Origin,
        prefix: &str,
        cells: Vec<String>,
        rest: &str,
    ) -> std::io::Result<()> {
        if origin != Origin::Initial {
            self.release()?;
        }
        if self.headers && !self.headed {
            let mut header = format!(
                "{:<12}  {:<8}  {:<w$}  ",
                "TIME",
                "TYPE",
                "RV",
                w = self.rv_width
            );
            let mut names: Vec<String> = vec!["NAME".into()];
            if self.wide {
                header.push_str(&format!("{:<14}  ", "KIND"));
                names.extend(["UID", "GENERATION", "DELAY"].map(String::from));
            }
            names.extend(self.labels.headers());
            self.table.write(&format!("{header}{}\n", names.join("\t")));
        }
        self.headed = true;
        self.table
            .write(&format!("{prefix}{}{rest}\n", cells.join("\t")));
        match origin {
            Origin::Initial => Ok(()),
            _ => self.release(),
        }
    }

    /// For a stream that merges several resources: every line names its resource.
    pub fn naming_resources(mut self) -> Self {
        self.several = true;
        self
    }

    /// The object's name as the line shows it: `NAMESPACE/NAME`, or with several resources
    /// kubectl's `NAMESPACE  KIND.GROUP/NAME` (`app  deployment.apps/web`, `app  pod/web-x`).
    /// With `--follow-owned`, an owned object is indented one step per owner above it and
    /// names its direct owner: `app      pod/web-7d9-x  <- replicaset.apps/web-7d9`.
    fn name(&self, e: &ObjectEvent<'_>) -> String {
        if !self.several {
            return e.object.key();
        }
        let qualified = qualified_name(e);
        let (indent, owner) = match e.owners {
            Some([.., direct]) => (
                "  ".repeat(e.owners.map_or(0, <[String]>::len)),
                format!("  <- {direct}"),
            ),
            _ => (String::new(), String::new()),
        };
        match e.object.namespace() {
            Some(ns) => format!("{ns}  {indent}{qualified}{owner}"),
            None => format!("{indent}{qualified}{owner}"),
        }
    }

    fn paint(&self, text: &str, code: &str) -> String {
        if self.color {
            format!("{code}{text}{RESET}")
        } else {
            text.to_string()
        }
    }

    fn type_column(&self, event_type: &str) -> String {
        let code = match event_type {
            "ADDED" => "\x1b[32m",
            "MODIFIED" => "\x1b[33m",
            "DELETED" => "\x1b[31m",
            "BOOKMARK" => "\x1b[36m",
            "REACTION" => "\x1b[34m",
            _ => "\x1b[35m",
        };
        self.paint(&format!("{event_type:<8}"), code)
    }

    fn rv_column(&mut self, rv: &str) -> String {
        self.rv_width = self.rv_width.max(rv.len());
        format!("{rv:<width$}", width = self.rv_width)
    }
}

/// kubectl's `KIND.GROUP/NAME` of an object (`deployment.apps/web`, `configmap/x`).
fn qualified_name(e: &ObjectEvent<'_>) -> String {
    let kind = qualified_kind(&e.watch.kind, &e.watch.api_version);
    format!("{kind}/{}", e.object.name())
}

/// A kind as kubectl names it in `TYPE/NAME`: `pod`, `deployment.apps`.
pub fn qualified_kind(kind: &str, api_version: &str) -> String {
    let kind = kind.to_ascii_lowercase();
    match api_version.split_once('/') {
        Some((group, _)) => format!("{kind}.{group}"),
        None => kind,
    }
}

/// Said before a replay of several resources: why their resourceVersions are one order, and
/// what order their events come in.
pub fn replay_across_line(resources: &[String]) -> String {
    format!(
        "{}  NOTICE    replaying {} from one resourceVersion: kube-apiserver stores each in one \
         etcd, whose revision orders every resource (comparable resourceVersions, KEP-5504); each \
         resource's events come in order, the resources' as they arrive (sort -o json by \
         resourceVersion for one timeline)",
        local_time(SystemTime::now()),
        resources.join(", ")
    )
}

/// A notice as a line of stderr: `TIME  NOTICE    [RESOURCE: ]SENTENCE`, the resource named
/// when the stream merges several; `label` is `NOTICE  `, colored or not.
pub fn notice_line(notice: Notice<'_>, at: SystemTime, label: &str, several: bool) -> String {
    let resource = match notice {
        Notice::Transition { watch, .. } | Notice::NotFound { watch, .. } if several => {
            format!("{}: ", watch.resource)
        }
        _ => String::new(),
    };
    format!(
        "{}  {label}  {resource}{}",
        local_time(at),
        describe_notice(notice)
    )
}

impl<O: Write, E: Write> EventPrinter for TextPrinter<O, E> {
    fn object(&mut self, e: &ObjectEvent<'_>) -> std::io::Result<()> {
        let time = local_time(e.received_at);
        let kind = self.type_column(e.event_type.as_str());
        let rv = self.rv_column(e.object.resource_version());
        let mark = match e.origin {
            Origin::Initial => "  (initial)",
            Origin::Watch => "",
            Origin::Relist => "  (relist)",
        };
        let changes = e
            .changes
            .filter(|c| !c.is_empty())
            .map(|c| format!("  {c}"))
            .unwrap_or_default();
        let (prefix, mut cells) = if self.wide {
            let generation = e
                .object
                .generation()
                .map(|g| g.to_string())
                .unwrap_or_else(|| "-".to_string());
            let delay = SystemTime::now()
                .duration_since(e.received_at)
                .unwrap_or_default();
            (
                format!("{time}  {kind}  {rv}  {:<14}  ", e.object.kind()),
                vec![
                    self.name(e),
                    e.object.uid().to_string(),
                    format!("gen={generation}"),
                    format!("delay={}", crate::format::human(delay)),
                ],
            )
        } else {
            (format!("{time}  {kind}  {rv}  "), vec![self.name(e)])
        };
        let line = if self.labels.is_empty() {
            writeln!(self.out, "{prefix}{}{mark}{changes}", cells.join("  "))
        } else {
            cells.extend(self.labels.cells(e.object));
            self.labelled(e.origin, &prefix, cells, &format!("{mark}{changes}"))
        };
        line?;
        match e.diff {
            Some(diff) => write_unified(&mut self.out, diff, &qualified_name(e), self.color),
            None => Ok(()),
        }
    }

    fn bookmark(&mut self, e: &BookmarkEvent<'_>) -> std::io::Result<()> {
        self.release()?;
        let time = local_time(e.received_at);
        let kind = self.type_column("BOOKMARK");
        let rv = self.rv_column(e.resource_version);
        let mark = if e.initial_events_end {
            "  (initial-events-end)"
        } else {
            ""
        };
        if self.several {
            writeln!(self.out, "{time}  {kind}  {rv}  {}{mark}", e.watch.resource)
        } else {
            writeln!(self.out, "{time}  {kind}  {}{mark}", rv.trim_end())
        }
    }

    fn notice(&mut self, notice: Notice<'_>, at: SystemTime) -> std::io::Result<()> {
        self.release()?;
        self.out.flush()?;
        let label = self.paint("NOTICE  ", "\x1b[35m");
        writeln!(
            self.err,
            "{}",
            notice_line(notice, at, &label, self.several)
        )
    }

    /// `TIME  REACTION  RV  NAME  ↳ generation N: ...` (wide: with kind and uid, as object
    /// lines), the RV the reaction's event's (else the write's).
    fn reaction(&mut self, e: &ReactionEvent<'_>) -> std::io::Result<()> {
        self.release()?;
        let time = local_time(e.at);
        let kind = self.type_column("REACTION");
        let rv = self.rv_column(&reaction_resource_version(e));
        let (namespace, name) = split_key(&e.resolved.write.key);
        let name = match (self.several, namespace) {
            (false, _) => e.resolved.write.key.clone(),
            (true, "") => format!(
                "{}/{name}",
                qualified_kind(&e.watch.kind, &e.watch.api_version)
            ),
            (true, ns) => format!(
                "{ns}  {}/{name}",
                qualified_kind(&e.watch.kind, &e.watch.api_version)
            ),
        };
        let said = describe_reaction(e);
        if self.wide {
            writeln!(
                self.out,
                "{time}  {kind}  {rv}  {:<14}  {name}  {}  {said}",
                e.watch.kind, e.uid
            )
        } else {
            writeln!(self.out, "{time}  {kind}  {rv}  {name}  {said}")
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()?;
        self.err.flush()
    }

    fn finish(&mut self) -> std::io::Result<()> {
        self.release()?;
        self.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::informer::object::RawObject;
    use crate::informer::transition::ReflectorEvent;
    use crate::recording::{StartNotice, Transition};
    use serde_json::value::RawValue;

    /// What a printer writes for one DELETED of `ns/a` at RV 12, one bookmark at 13 and one
    /// watch-opened notice: (stdout, stderr).
    fn printed(several: bool) -> (String, String) {
        let raw = RawValue::from_string(
            r#"{"kind":"ConfigMap","metadata":{"name":"a","namespace":"ns","resourceVersion":"12"}}"#
                .into(),
        )
        .unwrap();
        let object = RawObject::parse(raw, None).unwrap();
        let watch = crate::recording::writer::tests::configmaps();
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let mut p = TextPrinter::new(&mut out, &mut err, false, false);
        if several {
            p = p.naming_resources();
        }
        let at = SystemTime::now();
        p.object(&ObjectEvent {
            watch: &watch,
            event_type: crate::informer::transition::EventType::Deleted,
            origin: Origin::Relist,
            object: &object,
            received_at: at,
            changes: None,
            owners: None,
            diff: None,
        })
        .unwrap();
        p.bookmark(&BookmarkEvent {
            watch: &watch,
            resource_version: "13",
            initial_events_end: false,
            received_at: at,
        })
        .unwrap();
        let opened = ReflectorEvent::WatchOpened {
            resource_version: "13".into(),
        };
        p.notice(
            Notice::Transition {
                watch: &watch,
                transition: Transition::of(&opened).unwrap(),
            },
            at,
        )
        .unwrap();
        (
            String::from_utf8(out).unwrap(),
            String::from_utf8(err).unwrap(),
        )
    }

    #[test]
    fn events_go_to_stdout_and_notices_to_stderr_without_color() {
        let (out, err) = printed(false);
        assert!(out.contains("DELETED   12        ns/a  (relist)"), "{out}");
        assert!(out.contains("BOOKMARK  13\n"), "{out}");
        assert!(!out.contains('\x1b'));
        assert!(err.contains("NOTICE    watch opened from RV 13"), "{err}");
    }

    #[test]
    fn with_several_resources_each_line_names_its_resource_as_kubectl_does() {
        let (out, err) = printed(true);
        assert!(
            out.contains("DELETED   12        ns  configmap/a  (relist)"),
            "{out}"
        );
        assert!(out.contains("BOOKMARK  13        configmaps\n"), "{out}");
        assert!(
            err.contains("NOTICE    configmaps: watch opened from RV 13"),
            "{err}"
        );
    }

    #[test]
    fn a_kind_of_a_named_group_is_qualified_by_it_and_a_cluster_scoped_name_stands_alone() {
        let line =
            |api_version: &str, kind: &str, object: &str| followed(api_version, kind, object, None);
        fn followed(
            api_version: &str,
            kind: &str,
            object: &str,
            owners: Option<&[String]>,
        ) -> String {
            let raw = RawValue::from_string(object.into()).unwrap();
            let object = RawObject::parse(raw, None).unwrap();
            let watch = StartNotice {
                api_version: api_version.into(),
                kind: kind.into(),
                ..crate::recording::writer::tests::configmaps()
            };
            let mut out = Vec::new();
            TextPrinter::new(&mut out, Vec::new(), false, false)
                .naming_resources()
                .object(&ObjectEvent {
                    watch: &watch,
                    event_type: crate::informer::transition::EventType::Added,
                    origin: Origin::Watch,
                    object: &object,
                    received_at: SystemTime::now(),
                    changes: None,
                    owners,
                    diff: None,
                })
                .unwrap();
            String::from_utf8(out).unwrap()
        }
        let deployment = line(
            "apps/v1",
            "Deployment",
            r#"{"metadata":{"name":"web","namespace":"app","resourceVersion":"5"}}"#,
        );
        assert!(
            deployment.ends_with("  5         app  deployment.apps/web\n"),
            "{deployment}"
        );
        let node = line(
            "v1",
            "Node",
            r#"{"metadata":{"name":"kwok-node-1","resourceVersion":"6"}}"#,
        );
        assert!(node.ends_with("  6         node/kwok-node-1\n"), "{node}");
        let pod = r#"{"metadata":{"name":"web-7d9-x","namespace":"app","resourceVersion":"7"}}"#;
        let chain = [
            "deployment.apps/web".into(),
            "replicaset.apps/web-7d9".into(),
        ];
        let owned = followed("v1", "Pod", pod, Some(&chain));
        assert!(
            owned.ends_with("  7         app      pod/web-7d9-x  <- replicaset.apps/web-7d9\n"),
            "{owned}"
        );
        let root = followed("v1", "Pod", pod, Some(&[]));
        assert!(root.ends_with("  7         app  pod/web-7d9-x\n"), "{root}");
    }
}
