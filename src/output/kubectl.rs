//! The event formats `kubectl get -w` prints, for `tail`: `-o yaml`, each object as a YAML
//! document (`---` between them, keys in kubectl's order, `metadata.managedFields` left out
//! unless asked for, as kubectl leaves them out), `-o name`, one `KIND.GROUP/NAME` per event,
//! `-o jsonpath=` and `-o custom-columns=`, aligned by kubectl's tabwriter as kubectl's watch
//! aligns them: the objects that exist at the start together (held until the first thing after
//! them), then each event on its own, columns never narrowing. None has a place for bookmarks
//! (not printed), notices or a write's reaction (`tail --react`), which go to stderr as text
//! prints them.

use super::custom_columns::Columns;
use super::jsonpath::{ExecError, Template};
use super::tabwriter::TabWriter;
use super::tail_react::describe_reaction;
use super::text::{notice_line, qualified_kind};
use super::yaml::to_yaml;
use crate::format::local_time;
use crate::recording::{BookmarkEvent, EventPrinter, Notice, ObjectEvent, Origin, ReactionEvent};
use serde_json::Value;
use std::io::Write;
use std::time::SystemTime;

/// What each object event prints on stdout.
#[derive(Debug, Clone, PartialEq)]
pub enum Form {
    /// `-o yaml`; `true` keeps `metadata.managedFields` (`--show-managed-fields`).
    Yaml { managed_fields: bool },
    /// `-o name`.
    Name,
    /// `-o jsonpath=`, `-o jsonpath-file=`, `-o jsonpath-as-json=`.
    JsonPath {
        template: Template,
        /// `--allow-missing-template-keys` (kubectl's default: true).
        allow_missing: bool,
        /// `-o jsonpath-as-json=`: each action's values as a JSON array.
        as_json: bool,
        events: WatchEvents,
    },
    /// `-o custom-columns=`, `-o custom-columns-file=`.
    CustomColumns {
        columns: Columns,
        /// Not `--no-headers`.
        headers: bool,
        events: WatchEvents,
    },
}

/// `--output-watch-events`: whether a template is given each object, or kubectl's watch event
/// around it (`{"type": "ADDED", "object": {...}}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WatchEvents {
    Objects,
    Events,
}

/// A template that failed on an object, said as kubectl says it.
#[derive(Debug, thiserror::Error)]
#[error("unable to output {object}: {source}")]
pub struct TemplateFailed {
    /// The object, as `-o name` names it with its namespace: `configmap demo/a`.
    pub object: String,
    #[source]
    pub source: ExecError,
}

/// Prints object events as kubectl's watch does in `form`, notices as text lines on `err`.
pub struct KubectlPrinter<O: Write, E: Write> {
    out: O,
    err: E,
    form: Form,
    /// The stream merges several resources: notices name theirs.
    several: bool,
    /// Documents printed, for the `---` between them.
    printed: u64,
    /// jsonpath's and custom-columns' text not yet written, aligned as kubectl's watch aligns
    /// it: the objects that exist at the start are held until something comes after them.
    table: TabWriter,
    /// custom-columns' header was written.
    headed: bool,
}

impl<O: Write, E: Write> KubectlPrinter<O, E> {
    pub fn new(out: O, err: E, form: Form, several: bool) -> Self {
        KubectlPrinter {
            out,
            err,
            form,
            several,
            printed: 0,
            table: TabWriter::kubectl(),
            headed: false,
        }
    }

    /// What the table holds written out: the objects that exist at the start are over.
    fn release(&mut self) -> std::io::Result<()> {
        if !self.table.is_empty() {
            let text = self.table.flush();
            self.out.write_all(text.as_bytes())?;
        }
        Ok(())
    }

    /// jsonpath's or custom-columns' text for `e`, into the table.
    fn tabulate(&mut self, e: &ObjectEvent<'_>) -> std::io::Result<()> {
        let failed = |source| {
            let kind = qualified_kind(&e.watch.kind, &e.watch.api_version);
            std::io::Error::other(TemplateFailed {
                object: format!("{kind} {}", e.object.key()),
                source,
            })
        };
        match &self.form {
            Form::JsonPath {
                template,
                allow_missing,
                as_json,
                events,
            } => {
                let data = given(e, *events, true)?;
                let text = template
                    .print(&data, *allow_missing, *as_json)
                    .map_err(failed)?;
                self.table.write(&text);
            }
            Form::CustomColumns {
                columns,
                headers,
                events,
            } => {
                let row = columns.row(&given(e, *events, false)?).map_err(failed)?;
                if *headers && !self.headed {
                    self.table.write(&columns.header());
                }
                self.headed = true;
                self.table.write(&row);
            }
            Form::Yaml { .. } | Form::Name => {}
        }
        Ok(())
    }
}

/// The object's JSON, parsed.
fn parsed(e: &ObjectEvent<'_>, format: &str) -> std::io::Result<Value> {
    let raw = e.object.raw().ok_or_else(|| {
        std::io::Error::other(format!(
            "an object received in protobuf cannot be shown as {format}"
        ))
    })?;
    serde_json::from_str(raw.get()).map_err(std::io::Error::other)
}

/// What a template is given: the object, or with `--output-watch-events` the watch event
/// around it. kubectl's jsonpath reads that event back from JSON into Go values, where every
/// number is a float (custom-columns converts it without JSON, and keeps integers).
fn given(e: &ObjectEvent<'_>, events: WatchEvents, floats: bool) -> std::io::Result<Value> {
    let object = parsed(e, "a template's input")?;
    Ok(match events {
        WatchEvents::Objects => object,
        WatchEvents::Events => {
            let mut event = serde_json::json!({"type": e.event_type.as_str(), "object": object});
            if floats {
                as_floats(&mut event);
            }
            event
        }
    })
}

/// Every number in `v` made a float, as Go's `encoding/json` reads numbers into `interface{}`.
fn as_floats(v: &mut Value) {
    match v {
        Value::Number(n) => {
            if let Some(f) = n.as_f64().and_then(serde_json::Number::from_f64) {
                *n = f;
            }
        }
        Value::Array(a) => a.iter_mut().for_each(as_floats),
        Value::Object(m) => m.values_mut().for_each(as_floats),
        _ => {}
    }
}

impl<O: Write, E: Write> EventPrinter for KubectlPrinter<O, E> {
    fn object(&mut self, e: &ObjectEvent<'_>) -> std::io::Result<()> {
        if matches!(
            self.form,
            Form::JsonPath { .. } | Form::CustomColumns { .. }
        ) {
            if e.origin != Origin::Initial {
                self.release()?;
            }
            self.tabulate(e)?;
            return match e.origin {
                Origin::Initial => Ok(()),
                _ => self.release(),
            };
        }
        match &self.form {
            Form::Name => {
                let kind = qualified_kind(&e.watch.kind, &e.watch.api_version);
                writeln!(self.out, "{kind}/{}", e.object.name())
            }
            Form::Yaml { managed_fields } => {
                let managed_fields = *managed_fields;
                let mut object = parsed(e, "YAML")?;
                if !managed_fields {
                    if let Some(meta) = object
                        .get_mut("metadata")
                        .and_then(serde_json::Value::as_object_mut)
                    {
                        meta.shift_remove("managedFields");
                    }
                }
                if self.printed > 0 {
                    self.out.write_all(b"---\n")?;
                }
                self.printed += 1;
                self.out.write_all(to_yaml(&object).as_bytes())
            }
            Form::JsonPath { .. } | Form::CustomColumns { .. } => Ok(()),
        }
    }

    fn bookmark(&mut self, _: &BookmarkEvent<'_>) -> std::io::Result<()> {
        self.release()
    }

    fn notice(&mut self, notice: Notice<'_>, at: SystemTime) -> std::io::Result<()> {
        self.release()?;
        self.out.flush()?;
        writeln!(
            self.err,
            "{}",
            notice_line(notice, at, "NOTICE  ", self.several)
        )
    }

    fn reaction(&mut self, e: &ReactionEvent<'_>) -> std::io::Result<()> {
        self.release()?;
        self.out.flush()?;
        writeln!(
            self.err,
            "{}  REACTION  {}  {}",
            local_time(e.at),
            e.resolved.write.key,
            describe_reaction(e)
        )
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
