//! A recording (`tail --record`, `tail -o json`) read into the replay source: each line's event
//! handed to [`Replay`] with the time it was recorded at.

use crate::bench::replay::Replay;
use crate::informer::fifo::DeltaType;
use crate::informer::object::object_key;
use crate::recording::reader::{lines, note_resource, RecordLine};
use std::io::BufRead;

/// Reads a recording; errors name the line.
pub fn read_replay(input: impl BufRead) -> Result<Replay, String> {
    let mut replay = Replay::default();
    for line in lines(input) {
        let (number, line) = line?;
        match line {
            RecordLine::Start { resource, .. } => note_resource(&mut replay.resources, resource),
            RecordLine::Upsert {
                object,
                modified,
                time,
            } => {
                let delta_type = if modified {
                    DeltaType::Updated
                } else {
                    DeltaType::Added
                };
                replay.push_object(time, delta_type, object);
            }
            RecordLine::Deleted {
                object: Some(object),
                time,
                ..
            } => replay.push_object(time, DeltaType::Deleted, object),
            RecordLine::Deleted {
                namespace, name, ..
            } => {
                return Err(format!(
                    "line {number}: the DELETED event of {} has no object: record with \
                     `tail -o json` or `tail --record`, which keep it",
                    object_key(namespace.as_deref(), &name)
                ))
            }
            RecordLine::Synced {
                resource_version, ..
            } => replay.push_synced(resource_version),
            RecordLine::Other => {}
        }
    }
    Ok(replay)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn offsets_come_from_the_recorded_times() {
        let text = r#"{"type":"NOTICE","notice":"start","resource":"configmaps","time":"2026-01-01T00:00:00.000Z"}
{"type":"ADDED","resourceVersion":"1","namespace":"n","name":"a","time":"2026-01-01T00:00:01.000Z","object":{"metadata":{"name":"a","namespace":"n","resourceVersion":"1"}}}
{"type":"BOOKMARK","resourceVersion":"2","time":"2026-01-01T00:00:01.200Z"}
{"type":"DELETED","resourceVersion":"3","namespace":"n","name":"a","time":"2026-01-01T00:00:03.500Z","object":{"metadata":{"name":"a","namespace":"n","resourceVersion":"3"}}}
"#;
        let r = read_replay(text.as_bytes()).unwrap();
        assert_eq!(r.resources, ["configmaps"]);
        assert_eq!(r.events(), 2);
        assert_eq!(r.span(), Duration::from_millis(2500));
    }

    #[test]
    fn a_deletion_without_its_object_is_refused() {
        let text = r#"{"type":"DELETED","resourceVersion":"3","namespace":"n","name":"a"}"#;
        let err = read_replay(text.as_bytes()).unwrap_err();
        assert!(
            err.contains("line 1") && err.contains("tail -o json"),
            "{err}"
        );
    }
}
