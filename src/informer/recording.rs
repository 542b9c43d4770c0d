//! Reads a recording (tail's JSON Lines, or a `diff --save-cache` snapshot) back into a Store:
//! the last event per key wins, DELETED removes, bookmarks and list-complete notices set the RV.

use super::object::{object_key, RawObject};
use super::store::Store;
use serde::Deserialize;
use serde_json::value::RawValue;
use std::io::BufRead;

/// What a recording held.
#[derive(Debug, Default)]
pub struct Recording {
    /// The `resource` of its `start` notice, when it has one.
    pub resource: Option<String>,
    /// The cache as of the recording's end.
    pub store: Store,
    /// Object events read.
    pub events: usize,
}

#[derive(Deserialize)]
struct Line {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    notice: Option<String>,
    #[serde(default)]
    resource: Option<String>,
    #[serde(default, rename = "resourceVersion")]
    resource_version: Option<String>,
    #[serde(default)]
    namespace: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    object: Option<Box<RawValue>>,
}

/// Reads a recording; an unreadable line is an error naming its number.
pub fn read(input: impl BufRead) -> Result<Recording, String> {
    let mut rec = Recording::default();
    for (n, line) in input.lines().enumerate() {
        let line = line.map_err(|e| format!("cannot read line {}: {e}", n + 1))?;
        if line.trim().is_empty() {
            continue;
        }
        let parsed: Line = serde_json::from_str(&line)
            .map_err(|e| format!("line {} is not a recording line ({e})", n + 1))?;
        match (parsed.kind.as_str(), parsed.notice.as_deref()) {
            ("NOTICE", Some("start")) => rec.resource = parsed.resource,
            ("NOTICE", Some("list-complete")) | ("BOOKMARK", _) => {
                if let Some(rv) = parsed.resource_version {
                    rec.store.set_resource_version(&rv);
                }
            }
            ("ADDED" | "MODIFIED", _) => {
                let raw = parsed
                    .object
                    .ok_or_else(|| format!("line {}: an object event without an object", n + 1))?;
                let object = RawObject::parse(raw, None)
                    .map_err(|e| format!("line {}: the object cannot be read ({e})", n + 1))?;
                rec.store.set_resource_version(object.resource_version());
                rec.store.upsert(object);
                rec.events += 1;
            }
            ("DELETED", _) => {
                let name = parsed
                    .name
                    .ok_or_else(|| format!("line {}: a DELETED event without a name", n + 1))?;
                rec.store
                    .remove(&object_key(parsed.namespace.as_deref(), &name));
                if let Some(rv) = parsed.resource_version {
                    rec.store.set_resource_version(&rv);
                }
                rec.events += 1;
            }
            _ => {}
        }
    }
    Ok(rec)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_event_per_key_wins_and_deleted_removes() {
        let text = r#"{"type":"NOTICE","notice":"start","resource":"configmaps"}
{"type":"ADDED","resourceVersion":"1","namespace":"n","name":"a","object":{"metadata":{"name":"a","namespace":"n","resourceVersion":"1"}}}
{"type":"ADDED","resourceVersion":"2","namespace":"n","name":"b","object":{"metadata":{"name":"b","namespace":"n","resourceVersion":"2"}}}
{"type":"NOTICE","notice":"list-complete","resourceVersion":"2"}
{"type":"MODIFIED","resourceVersion":"3","namespace":"n","name":"a","object":{"metadata":{"name":"a","namespace":"n","resourceVersion":"3"}}}
{"type":"DELETED","resourceVersion":"4","namespace":"n","name":"b","object":{"metadata":{"name":"b","namespace":"n","resourceVersion":"4"}}}
{"type":"BOOKMARK","resourceVersion":"9","initialEventsEnd":false}
"#;
        let rec = read(text.as_bytes()).unwrap();
        assert_eq!(rec.resource.as_deref(), Some("configmaps"));
        assert_eq!(rec.events, 4);
        assert_eq!(rec.store.keys(), vec!["n/a"]);
        assert_eq!(rec.store.get("n/a").unwrap().resource_version(), "3");
        assert_eq!(rec.store.resource_version(), "9");
    }

    #[test]
    fn a_bad_line_is_named() {
        let err = read("{\"type\":\"ADDED\"}\nnot json\n".as_bytes()).unwrap_err();
        assert!(err.contains("line 1"), "{err}");
        let err = read("not json\n".as_bytes()).unwrap_err();
        assert!(err.contains("line 1 is not a recording line"), "{err}");
    }
}
