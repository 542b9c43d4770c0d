//! What tail keeps of the object events it would show: only some event types (`--types`), and
//! not a MODIFIED whose every changed field is under a path the user hides (`--ignore-field
//! status`). Hidden events are still taken in (cache, owner graph, `--until-rv`) and counted.

use super::feed::Seen;
use crate::informer::fields::{self, under};
use crate::informer::transition::EventType;

/// The filters of a run; the default keeps everything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// The event types shown; `None` for all.
    pub types: Option<Vec<EventType>>,
    /// Field paths (`status`, `metadata.annotations`, `spec.template.spec.containers[web]`):
    /// a MODIFIED that changed only fields at or under them is hidden.
    pub ignored: Vec<String>,
}

impl Filter {
    /// Whether `seen` is hidden. A MODIFIED that changed nothing tail can name (noise only, or
    /// no earlier version to compare with) is kept: nothing says it is only in ignored paths.
    pub(super) fn hides(&self, seen: &Seen) -> bool {
        if let Some(types) = &self.types {
            if !types.contains(&seen.event_type) {
                return true;
            }
        }
        if self.ignored.is_empty() || seen.event_type != EventType::Modified {
            return false;
        }
        let Some(old) = &seen.old else {
            return false;
        };
        match fields::changed_paths(old, &seen.object) {
            Some(paths) if !paths.is_empty() => paths
                .iter()
                .all(|path| self.ignored.iter().any(|prefix| under(path, prefix))),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::informer::object::RawObject;
    use crate::informer::transition::Origin;
    use serde_json::json;
    use std::time::SystemTime;

    fn object(value: serde_json::Value) -> RawObject {
        let raw = serde_json::value::RawValue::from_string(value.to_string()).unwrap();
        RawObject::parse(raw, None).unwrap()
    }

    fn modified(old: serde_json::Value, new: serde_json::Value) -> Seen {
        Seen {
            event_type: EventType::Modified,
            origin: Origin::Watch,
            object: object(new),
            received_at: SystemTime::now(),
            old: Some(object(old)),
            hidden: false,
        }
    }

    #[test]
    fn a_modified_only_under_ignored_paths_is_hidden_and_one_that_touches_another_is_not() {
        let filter = Filter {
            types: None,
            ignored: vec!["status".into(), "metadata.annotations".into()],
        };
        let meta = |rv: &str| json!({"name": "a", "resourceVersion": rv});
        let status_only = modified(
            json!({"metadata": meta("1"), "status": {"ready": 1}}),
            json!({"metadata": meta("2"), "status": {"ready": 2}}),
        );
        assert!(filter.hides(&status_only));
        let spec_too = modified(
            json!({"metadata": meta("1"), "spec": {"replicas": 1}, "status": {"ready": 1}}),
            json!({"metadata": meta("2"), "spec": {"replicas": 2}, "status": {"ready": 2}}),
        );
        assert!(!filter.hides(&spec_too));
        // `statusx` is not under `status`; a change of noise alone names nothing: kept.
        let other = modified(
            json!({"metadata": meta("1"), "statusx": 1}),
            json!({"metadata": meta("2"), "statusx": 2}),
        );
        assert!(!filter.hides(&other));
        let noise = modified(
            json!({"metadata": meta("1")}),
            json!({"metadata": meta("2")}),
        );
        assert!(!filter.hides(&noise));
    }

    #[test]
    fn types_keep_only_the_event_types_named() {
        let filter = Filter {
            types: Some(vec![EventType::Added, EventType::Deleted]),
            ignored: Vec::new(),
        };
        let mut seen = modified(json!({"a": 1}), json!({"a": 2}));
        assert!(filter.hides(&seen));
        seen.event_type = EventType::Deleted;
        assert!(!filter.hides(&seen));
    }
}
