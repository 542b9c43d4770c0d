//! Which fields differ between two versions of an object, without the noise every write makes
//! (the `metadata` fields of [`super::patch::NOISE`]): `spec.replicas 3→5`. One line of them
//! ([`summary`]) is what tail's MODIFIED lines and diff's drifted objects say changed.

use super::object::RawObject;
use serde_json::Value;

/// Values longer than this are named, not shown (an image reference with its registry fits).
const MAX_SHOWN: usize = 64;

/// One changed field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldChange {
    /// Dotted path: `spec.replicas`, `metadata.labels.app`, `data.key`.
    pub path: String,
    /// The old and new value when both are short scalars (absent side shown as `∅`).
    pub values: Option<(String, String)>,
}

impl std::fmt::Display for FieldChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.values {
            Some((old, new)) => write!(f, "{} {old}→{new}", self.path),
            None => f.write_str(&self.path),
        }
    }
}

/// Whether a change at `path` is bookkeeping, not content: the same fields a diff leaves out.
fn is_noise(path: &str) -> bool {
    path.strip_prefix("metadata.")
        .is_some_and(|field| super::patch::NOISE.contains(&field))
}

/// The fields that changed from `old` to `new` as one short line: up to `limit`, then `+N
/// more`; with `show_values`, short values as `old→new` (not for a Secret's). Empty when either
/// has no JSON to read (an object received in protobuf).
pub fn summary(old: &RawObject, new: &RawObject, limit: usize, show_values: bool) -> String {
    let parse = |o: &RawObject| serde_json::from_str::<Value>(o.json()?).ok();
    match (parse(old), parse(new)) {
        (Some(a), Some(b)) => summarize(&changed_fields(&a, &b), limit, show_values),
        _ => String::new(),
    }
}

/// The paths of every field that changed from `old` to `new` (noise left out), as [`summary`]
/// names them; `None` when either has no JSON to read.
pub fn changed_paths(old: &RawObject, new: &RawObject) -> Option<Vec<String>> {
    let parse = |o: &RawObject| serde_json::from_str::<Value>(o.json()?).ok();
    let (a, b) = (parse(old)?, parse(new)?);
    Some(changed_fields(&a, &b).into_iter().map(|c| c.path).collect())
}

/// The changed leaf fields from `old` to `new`, in document order; lists of objects item by
/// item, each known by its key (`containers[web].image`, see [`list_key`]) or its index.
fn changed_fields(old: &Value, new: &Value) -> Vec<FieldChange> {
    let mut out = Vec::new();
    walk(String::new(), Some(old), Some(new), &mut out);
    out
}

/// `changed_fields` as one short line: up to `limit` fields, then `+N more`.
fn summarize(changes: &[FieldChange], limit: usize, show_values: bool) -> String {
    // The object's own fields first (`status.observedGeneration`), then the leaves of list
    // items (`status.conditions[Ready].status`), each in document order: a write that changes
    // both is known by the first, and a list's many leaves do not push them past `limit`.
    let (own, in_lists): (Vec<&FieldChange>, Vec<&FieldChange>) =
        changes.iter().partition(|c| !c.path.contains('['));
    let mut parts: Vec<String> = own
        .into_iter()
        .chain(in_lists)
        .take(limit)
        .map(|c| {
            if show_values {
                c.to_string()
            } else {
                c.path.clone()
            }
        })
        .collect();
    if changes.len() > limit {
        parts.push(format!("+{} more", changes.len() - limit));
    }
    parts.join(", ")
}

fn walk(path: String, old: Option<&Value>, new: Option<&Value>, out: &mut Vec<FieldChange>) {
    if is_noise(&path) || old == new {
        return;
    }
    match (old, new) {
        (Some(Value::Object(a)), Some(Value::Object(b))) => {
            for (key, va) in a {
                walk(join(&path, key), Some(va), b.get(key), out);
            }
            for (key, vb) in b.iter().filter(|(k, _)| !a.contains_key(*k)) {
                walk(join(&path, key), None, Some(vb), out);
            }
        }
        // A whole map added or removed: name its leaves, so `metadata.labels.app ∅→web` shows.
        (Some(Value::Object(a)), None) if !a.is_empty() => {
            for (key, va) in a {
                walk(join(&path, key), Some(va), None, out);
            }
        }
        (None, Some(Value::Object(b))) if !b.is_empty() => {
            for (key, vb) in b {
                walk(join(&path, key), None, Some(vb), out);
            }
        }
        (Some(Value::Array(a)), Some(Value::Array(b))) if items(&path, a, b, out) => {}
        _ => out.push(FieldChange {
            values: match (short(old), short(new)) {
                (Some(a), Some(b)) => Some((a, b)),
                _ => None,
            },
            path,
        }),
    }
}

/// Two versions of a list of objects compared item by item, as kubectl's strategic merge keys
/// them: by `name`/`type` (an item only in one is `∅→{…}` or `{…}→∅`), else by index when both
/// have as many. False, with nothing added, for lists of scalars, lists keyed differently, or an
/// order that changed with nothing else: the list is then named whole.
fn items(path: &str, old: &[Value], new: &[Value], out: &mut Vec<FieldChange>) -> bool {
    let objects = |items: &[Value]| items.iter().all(Value::is_object);
    if !objects(old) || !objects(new) {
        return false;
    }
    let before = out.len();
    match (list_key(old), list_key(new)) {
        (Some(key), Some(same)) if key == same => {
            let name = |item: &Value| item[key].as_str().unwrap_or_default().to_string();
            for a in old {
                let at = format!("{path}[{}]", name(a));
                match new.iter().find(|b| name(b) == name(a)) {
                    Some(b) => walk(at, Some(a), Some(b), out),
                    None => out.push(whole(at, "{…}", "∅")),
                }
            }
            for b in new
                .iter()
                .filter(|b| !old.iter().any(|a| name(a) == name(b)))
            {
                out.push(whole(format!("{path}[{}]", name(b)), "∅", "{…}"));
            }
        }
        _ if old.len() == new.len() => {
            for (i, (a, b)) in old.iter().zip(new).enumerate() {
                walk(format!("{path}[{i}]"), Some(a), Some(b), out);
            }
        }
        _ => return false,
    }
    out.len() > before
}

/// Whether `path` is the field `prefix` or below it (`status.phase` is under `status`,
/// `.spec.containers[web].image` under `.spec.containers`; `statusx` is not under `status`).
pub fn under(path: &str, prefix: &str) -> bool {
    path.strip_prefix(prefix)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
}

/// An item of a list added or removed whole.
fn whole(path: String, old: &str, new: &str) -> FieldChange {
    FieldChange {
        path,
        values: Some((old.to_string(), new.to_string())),
    }
}

/// The field an item of a list is known by, as kubectl's strategic merge keys lists: `name`
/// (containers, volumes, env, ports of a Service), else `type` (conditions); `None` when some
/// item has no such string or two share one (the items are then known by their index).
pub fn list_key(items: &[Value]) -> Option<&'static str> {
    ["name", "type"].into_iter().find(|key| {
        let mut seen = std::collections::HashSet::new();
        items
            .iter()
            .all(|item| item[*key].as_str().is_some_and(|k| seen.insert(k)))
    })
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// A scalar short enough to print on one line, or `∅` for an absent field.
fn short(v: Option<&Value>) -> Option<String> {
    let text = match v {
        None => "∅".to_string(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        Some(Value::Bool(b)) => b.to_string(),
        Some(Value::Null) => "null".to_string(),
        Some(_) => return None,
    };
    (text.chars().count() <= MAX_SHOWN && !text.contains('\n')).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn scalar_changes_show_old_and_new_and_noise_is_left_out() {
        let old = json!({"metadata": {"resourceVersion": "1", "managedFields": [1], "generation": 1, "labels": {"app": "a"}}, "spec": {"replicas": 3}});
        let new = json!({"metadata": {"resourceVersion": "2", "managedFields": [2], "generation": 2, "labels": {"app": "b", "tier": "web"}}, "spec": {"replicas": 5}});
        let changes = changed_fields(&old, &new);
        let text = summarize(&changes, 10, true);
        assert_eq!(
            text,
            "metadata.labels.app a→b, metadata.labels.tier ∅→web, spec.replicas 3→5"
        );
    }

    #[test]
    fn long_values_and_arrays_are_named_only_and_the_list_is_capped() {
        let old = json!({"data": {"big": "x".repeat(100), "a": "1", "b": "1", "c": "1"}, "spec": {"ports": [1]}});
        let new = json!({"data": {"big": "y".repeat(100), "a": "2", "b": "2", "c": "2"}, "spec": {"ports": [1, 2]}});
        let changes = changed_fields(&old, &new);
        assert_eq!(
            changes[0],
            FieldChange {
                path: "data.big".into(),
                values: None
            }
        );
        assert_eq!(
            summarize(&changes, 2, true),
            "data.big, data.a 1→2, +3 more"
        );
        assert_eq!(summarize(&changes[..2], 5, false), "data.big, data.a");
    }

    #[test]
    fn a_map_added_whole_names_its_leaves() {
        let old = json!({"metadata": {"name": "a"}});
        let new = json!({"metadata": {"name": "a", "labels": {"app": "web"}}});
        assert_eq!(
            summarize(&changed_fields(&old, &new), 5, true),
            "metadata.labels.app ∅→web"
        );
    }

    #[test]
    fn the_summary_of_two_objects_reads_their_json_and_hides_values_when_asked() {
        let object = |json: serde_json::Value| {
            let raw = serde_json::value::RawValue::from_string(json.to_string()).unwrap();
            RawObject::parse(raw, None).unwrap()
        };
        let old =
            object(json!({"metadata": {"name": "a", "resourceVersion": "1"}, "data": {"k": "1"}}));
        let new =
            object(json!({"metadata": {"name": "a", "resourceVersion": "2"}, "data": {"k": "2"}}));
        assert_eq!(summary(&old, &new, 4, true), "data.k 1→2");
        assert_eq!(summary(&old, &new, 4, false), "data.k");
    }

    #[test]
    fn a_change_inside_a_list_is_its_leaf_keyed_as_strategic_merge_keys_it() {
        let pod = |image: &str, extra: bool| {
            let mut containers =
                vec![json!({"name": "web", "image": image, "ports": [{"containerPort": 80}]})];
            if extra {
                containers.push(json!({"name": "log", "image": "busybox"}));
            }
            json!({"spec": {"template": {"spec": {"containers": containers}}}})
        };
        let set_image = changed_fields(
            &pod("registry.example/web:1", false),
            &pod("registry.example/web:2", false),
        );
        assert_eq!(
            summarize(&set_image, 5, true),
            "spec.template.spec.containers[web].image registry.example/web:1→registry.example/web:2"
        );
        // A container added or removed whole.
        assert_eq!(
            summarize(&changed_fields(&pod("a", false), &pod("a", true)), 5, true),
            "spec.template.spec.containers[log] ∅→{…}"
        );
        assert_eq!(
            summarize(&changed_fields(&pod("a", true), &pod("a", false)), 5, true),
            "spec.template.spec.containers[log] {…}→∅"
        );
        // Conditions by type; items without a key by index; scalars and a new order whole.
        let conditions = |status: &str| json!({"status": {"conditions": [{"type": "Ready", "status": status}, {"type": "Synced", "status": "True"}]}});
        assert_eq!(
            summarize(
                &changed_fields(&conditions("False"), &conditions("True")),
                5,
                true
            ),
            "status.conditions[Ready].status False→True"
        );
        let ports = |port: u16| json!({"spec": {"ports": [{"port": port}]}});
        assert_eq!(
            summarize(&changed_fields(&ports(80), &ports(8080)), 5, true),
            "spec.ports[0].port 80→8080"
        );
        let args = |a: &[&str]| json!({"args": a});
        assert_eq!(
            summarize(
                &changed_fields(&args(&["-v"]), &args(&["-v", "-q"])),
                5,
                true
            ),
            "args"
        );
        let reordered =
            |names: [&str; 2]| json!({"volumes": [{"name": names[0]}, {"name": names[1]}]});
        assert_eq!(
            summarize(
                &changed_fields(&reordered(["a", "b"]), &reordered(["b", "a"])),
                5,
                true
            ),
            "volumes"
        );
    }

    #[test]
    fn the_objects_own_fields_come_before_the_leaves_of_its_lists() {
        let status = |generation: i64, reason: &str| json!({"status": {"conditions": [{"type": "Progressing", "reason": reason, "message": reason}], "observedGeneration": generation}});
        assert_eq!(
            summarize(&changed_fields(&status(1, "a"), &status(2, "b")), 2, true),
            "status.observedGeneration 1→2, status.conditions[Progressing].reason a→b, +1 more"
        );
    }

    #[test]
    fn removed_fields_and_identical_objects() {
        let old = json!({"spec": {"paused": true}});
        let new = json!({"spec": {}});
        assert_eq!(
            summarize(&changed_fields(&old, &new), 5, true),
            "spec.paused true→∅"
        );
        assert!(changed_fields(&old, &old).is_empty());
    }
}
