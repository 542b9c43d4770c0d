//! The event formats `kubectl get -w` prints, for `tail`: `-o yaml`, each object as a YAML
//! document (`---` between them, keys in kubectl's order, `metadata.managedFields` left out
//! unless asked for, as kubectl leaves them out), and `-o name`, one `KIND.GROUP/NAME` per
//! event. Neither has a place for bookmarks (not printed), notices or a write's reaction (`tail
//! --react`), which go to stderr as text prints them.

use super::tail_react::describe_reaction;
use super::text::{notice_line, qualified_kind};
use super::yaml::to_yaml;
use crate::format::local_time;
use crate::recording::{BookmarkEvent, EventPrinter, Notice, ObjectEvent, ReactionEvent};
use std::io::Write;
use std::time::SystemTime;

/// What each object event prints on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// `-o yaml`; `true` keeps `metadata.managedFields` (`--show-managed-fields`).
    Yaml { managed_fields: bool },
    /// `-o name`.
    Name,
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
}

impl<O: Write, E: Write> KubectlPrinter<O, E> {
    pub fn new(out: O, err: E, form: Form, several: bool) -> Self {
        KubectlPrinter {
            out,
            err,
            form,
            several,
            printed: 0,
        }
    }
}

impl<O: Write, E: Write> EventPrinter for KubectlPrinter<O, E> {
    fn object(&mut self, e: &ObjectEvent<'_>) -> std::io::Result<()> {
        match self.form {
            Form::Name => {
                let kind = qualified_kind(&e.watch.kind, &e.watch.api_version);
                writeln!(self.out, "{kind}/{}", e.object.name())
            }
            Form::Yaml { managed_fields } => {
                let raw = e.object.raw().ok_or_else(|| {
                    std::io::Error::other("an object received in protobuf cannot be shown as YAML")
                })?;
                let mut object: serde_json::Value =
                    serde_json::from_str(raw.get()).map_err(std::io::Error::other)?;
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
        }
    }

    fn bookmark(&mut self, _: &BookmarkEvent<'_>) -> std::io::Result<()> {
        Ok(())
    }

    fn notice(&mut self, notice: Notice<'_>, at: SystemTime) -> std::io::Result<()> {
        self.out.flush()?;
        writeln!(
            self.err,
            "{}",
            notice_line(notice, at, "NOTICE  ", self.several)
        )
    }

    fn reaction(&mut self, e: &ReactionEvent<'_>) -> std::io::Result<()> {
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
}
