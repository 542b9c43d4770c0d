//! The end state a controller leaves behind, and the verdict: a run's state against the state
//! fault-free runs of the same workload left.
//!
//! A state is every object of the resources named, in one namespace, cut down to the fields the
//! controller under test manages (its field managers' entries in `managedFields`, learned from
//! its own writes through the proxy: see [`managed`]), so that what the scheduler, kwok,
//! admission or the workload wrote is not compared; with `--all-fields` every field. Then
//! normalized so that two runs of the same workload compare equal: what the server makes new each time is taken out
//! (uid, resourceVersion, creationTimestamp, managedFields, the namespace, also inside kubectl's
//! last-applied annotation, owner references' uids), a generated name's random suffix is written `*` (`parent-child-*`), wherever the
//! name appears (a parent that records its child's name; a string that is a whole name ending
//! in `-` and five of the letters kube-apiserver draws suffixes from is taken for one too, the
//! name of an object gone since), and every RFC 3339 time is written
//! `<time>`. What else differs between fault-free runs is not guessed: it is what differs
//! between the baselines given (run the fault-free workload twice), and it is left out of the
//! comparison.

use crate::informer::fields::list_key;
use crate::informer::fields::under;
use serde_json::Value;
use std::collections::BTreeMap;

pub mod managed;

/// The version of the state file's layout (2: the objects cut down to the controller's fields).
pub const SCHEMA_VERSION: u32 = 2;

/// A run's end state: per key (`RESOURCE NAME`, the name normalized), its objects, normalized,
/// in a stable order (more than one when generated names collide once normalized).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct State {
    pub schema_version: u32,
    pub namespace: String,
    pub resources: Vec<String>,
    pub objects: BTreeMap<String, Vec<Value>>,
    /// The controller's writes the server committed during the run (through the proxy), by
    /// verb and resource (`create secrets`); creates and deletes are compared.
    #[serde(default)]
    pub writes: BTreeMap<String, u64>,
    /// The kinds of those writes, in the order each first came.
    #[serde(default)]
    pub write_order: Vec<String>,
    /// The resources the controller watched, in the order each was first.
    #[serde(default)]
    pub watched: Vec<String>,
    /// The field managers of the controller's writes (`fieldManager`, else its User-Agent's
    /// first word, as kube-apiserver names them), whose fields the objects were cut down to.
    #[serde(default)]
    pub managers: Vec<String>,
    /// Every field kept (`--all-fields`), not only the controller's.
    #[serde(default)]
    pub all_fields: bool,
    /// How the workload ended when it failed (`exit status: 1`): what it waited for did not come,
    /// or a command of it failed. Never in a saved state: a baseline's workload succeeded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload_failed: Option<String>,
}

/// Which fields of an object a state keeps.
#[derive(Debug, Clone, Copy)]
pub enum Fields<'a> {
    /// Those these field managers own (the controller's); an object they own none of is kept
    /// empty, so that it is still counted.
    ManagedBy(&'a [String]),
    /// Every field.
    All,
}

impl State {
    /// The state of `lists` (each resource's name and its LIST's items) in `namespace`, each
    /// object cut down to `fields`.
    pub fn of(namespace: &str, lists: Vec<(String, Vec<Value>)>, fields: Fields) -> State {
        let mut generated: Vec<(String, String)> = lists
            .iter()
            .flat_map(|(_, items)| items.iter())
            .filter_map(generated_name)
            .collect();
        // The longest first, so that a name that contains another is replaced whole.
        generated.sort_by_key(|(name, _)| std::cmp::Reverse(name.len()));
        let mut objects: BTreeMap<String, Vec<Value>> = BTreeMap::new();
        let resources = lists.iter().map(|(r, _)| r.clone()).collect();
        // kubectl's last-applied annotation holds the object as applied, namespace and all.
        let named = format!("\"namespace\":\"{namespace}\"");
        for (resource, items) in lists {
            for item in items {
                let mut name = item["metadata"]["name"].clone();
                normalize(&mut name, &generated);
                let mut item = match fields {
                    Fields::All => item,
                    Fields::ManagedBy(managers) => match managed::owned_by(&item, managers) {
                        Some(set) => managed::project(&item, &set),
                        None => Value::Object(Default::default()),
                    },
                };
                normalize(&mut item, &generated);
                strings(&mut item, &mut |s| {
                    if s.contains(&named) {
                        *s = s.replace(&named, "\"namespace\":\"<namespace>\"");
                    }
                });
                let name = name.as_str().unwrap_or("").to_string();
                objects
                    .entry(format!("{resource} {name}"))
                    .or_default()
                    .push(item);
            }
        }
        for list in objects.values_mut() {
            list.sort_by_cached_key(Value::to_string);
        }
        State {
            schema_version: SCHEMA_VERSION,
            namespace: namespace.to_string(),
            resources,
            objects,
            writes: BTreeMap::new(),
            write_order: Vec::new(),
            watched: Vec::new(),
            managers: match fields {
                Fields::ManagedBy(managers) => managers.to_vec(),
                Fields::All => Vec::new(),
            },
            all_fields: matches!(fields, Fields::All),
            workload_failed: None,
        }
    }
}

/// An object's generated name and how it is written normalized (`parent-child-*`).
fn generated_name(item: &Value) -> Option<(String, String)> {
    let name = item["metadata"]["name"].as_str()?;
    let prefix = item["metadata"]["generateName"].as_str()?;
    (name.len() > prefix.len() && name.starts_with(prefix))
        .then(|| (name.to_string(), format!("{prefix}*")))
}

/// `item` with what a server makes new on each run taken out or written the same way.
fn normalize(item: &mut Value, generated: &[(String, String)]) {
    if let Some(meta) = item.get_mut("metadata").and_then(Value::as_object_mut) {
        for field in [
            "uid",
            "resourceVersion",
            "creationTimestamp",
            "managedFields",
            "selfLink",
            "namespace",
        ] {
            meta.remove(field);
        }
        if let Some(owners) = meta
            .get_mut("ownerReferences")
            .and_then(Value::as_array_mut)
        {
            for owner in owners.iter_mut().filter_map(Value::as_object_mut) {
                owner.remove("uid");
            }
        }
    }
    strings(item, &mut |s| {
        if is_time(s) {
            *s = "<time>".to_string();
            return;
        }
        for (name, pattern) in generated {
            if s.contains(name.as_str()) {
                *s = s.replace(name.as_str(), pattern);
            }
        }
        // A name of an object that is not there (a record of a child deleted since).
        if let Some(prefix) = generated_suffix(s) {
            *s = format!("{prefix}*");
        }
    });
}

/// The prefix of a string that is a whole generated name (`NAME-` and five suffix letters).
fn generated_suffix(s: &str) -> Option<&str> {
    let (prefix, suffix) = s.split_at_checked(s.len().checked_sub(5)?)?;
    let name_like = s
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.');
    (name_like
        && prefix.len() > 1
        && prefix.ends_with('-')
        && suffix
            .chars()
            .all(|c| crate::rng::NAME_SUFFIX_LETTERS.contains(c)))
    .then_some(prefix)
}

/// Calls `f` on every string in `value`, keys of objects excepted.
fn strings(value: &mut Value, f: &mut impl FnMut(&mut String)) {
    match value {
        Value::String(s) => f(s),
        Value::Array(items) => items.iter_mut().for_each(|v| strings(v, f)),
        Value::Object(map) => map.values_mut().for_each(|v| strings(v, f)),
        _ => {}
    }
}

/// Whether `s` is an RFC 3339 date-time (`2026-12-01T22:31:09Z`, with a fraction or offset).
fn is_time(s: &str) -> bool {
    let b = s.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    b.len() >= 20
        && digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && matches!(b[10], b'T' | b't')
        && digits(11..13)
        && b[13] == b':'
        && (s.ends_with('Z')
            || s.ends_with('z')
            || b[b.len() - 6] == b'+'
            || b[b.len() - 6] == b'-')
}

/// How a run's state differs from the baselines' at one key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Difference {
    /// Objects the baselines have and the run does not.
    Missing { key: String, count: usize },
    /// Objects the run has and the baselines do not.
    Extra { key: String, count: usize },
    /// An object with other content: the first fields that differ (path, baseline, run).
    Content {
        key: String,
        fields: Vec<(String, String, String)>,
    },
    /// The controller created or deleted objects of a resource another number of times (`key`:
    /// `RESOURCE VERB`, as `secrets delete`): an object deleted and made again, or made twice
    /// and deleted once, which the end state alone does not show.
    Writes {
        key: String,
        baseline: u64,
        run: u64,
    },
    /// The workload failed (`status`: how it ended), where the baselines' succeeded: a reaction
    /// it waited for never came (`kubectl wait`, `bench --react`'s gate), or a write of it was
    /// refused.
    Workload { status: String },
}

impl Difference {
    pub fn key(&self) -> &str {
        match self {
            Difference::Missing { key, .. }
            | Difference::Extra { key, .. }
            | Difference::Content { key, .. }
            | Difference::Writes { key, .. } => key,
            Difference::Workload { .. } => "",
        }
    }
}

/// What a comparison found: the differences, and what the baselines disagree on (left out).
/// The workload's failure comes first, then the objects, by key, then the writes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Verdict {
    pub differences: Vec<Difference>,
    /// Keys whose object count (or count of writes) differs between the baselines.
    pub unstable_keys: usize,
    /// Fields whose value differs between the baselines.
    pub unstable_fields: usize,
}

/// How many differing fields a content difference lists.
const FIELDS_SHOWN: usize = 3;

/// `run` against `baselines` (at least one): how its workload ended, then every key of either,
/// compared where the baselines agree, the fields under `ignored` paths (`--ignore-field`) left
/// out.
pub fn compare(baselines: &[State], run: &State, ignored: &[String]) -> Verdict {
    let mut verdict = Verdict::default();
    let Some(first) = baselines.first() else {
        return verdict;
    };
    if let Some(status) = &run.workload_failed {
        verdict.differences.push(Difference::Workload {
            status: status.clone(),
        });
    }
    let keys: std::collections::BTreeSet<&String> = baselines
        .iter()
        .flat_map(|b| b.objects.keys())
        .chain(run.objects.keys())
        .collect();
    let none = Vec::new();
    for key in keys {
        let of = |s: &'_ State| s.objects.get(key.as_str()).unwrap_or(&none).clone();
        let base = of(first);
        if baselines.iter().any(|b| of(b).len() != base.len()) {
            verdict.unstable_keys += 1;
            continue;
        }
        let ran = of(run);
        let key = key.to_string();
        match ran.len().cmp(&base.len()) {
            std::cmp::Ordering::Less => verdict.differences.push(Difference::Missing {
                key: key.clone(),
                count: base.len() - ran.len(),
            }),
            std::cmp::Ordering::Greater => verdict.differences.push(Difference::Extra {
                key: key.clone(),
                count: ran.len() - base.len(),
            }),
            std::cmp::Ordering::Equal => {}
        }
        for (i, (b, r)) in base.iter().zip(&ran).enumerate() {
            let kept = |s: &State| {
                let mut fields = flat(&of(s)[i]);
                fields.retain(|path, _| !ignored.iter().any(|i| under(path, i)));
                fields
            };
            let others: Vec<BTreeMap<String, String>> = baselines.iter().map(kept).collect();
            let (fields, unstable) = differing(&others, &kept(run));
            verdict.unstable_fields += unstable;
            if !fields.is_empty() && b != r {
                verdict.differences.push(Difference::Content {
                    key: key.clone(),
                    fields,
                });
            }
        }
    }
    writes(baselines, run, &mut verdict);
    verdict
}

/// The controller's creates and deletes of each resource of the state against the baselines'
/// (where they agree). Writes of other resources are not compared: not what was asked about,
/// and some are lost by design (a crash loses the Events a recorder had not sent yet).
fn writes(baselines: &[State], run: &State, verdict: &mut Verdict) {
    let compared = |k: &&String| {
        k.split_once(' ').is_some_and(|(verb, resource)| {
            matches!(verb, "create" | "delete") && run.resources.iter().any(|r| r == resource)
        })
    };
    let keys: std::collections::BTreeSet<&String> = baselines
        .iter()
        .flat_map(|b| b.writes.keys())
        .chain(run.writes.keys())
        .filter(compared)
        .collect();
    for key in keys {
        let count = |s: &State| s.writes.get(key).copied().unwrap_or(0);
        let base = count(&baselines[0]);
        if baselines.iter().any(|b| count(b) != base) {
            verdict.unstable_keys += 1;
            continue;
        }
        let ran = count(run);
        if ran != base {
            let (verb, resource) = key.split_once(' ').unwrap_or((key, ""));
            verdict.differences.push(Difference::Writes {
                key: format!("{resource} {verb}"),
                baseline: base,
                run: ran,
            });
        }
    }
}

/// The fields where `run` differs from the baselines (the first [`FIELDS_SHOWN`]), among those
/// the baselines agree on; and how many they disagree on.
fn differing(
    baselines: &[BTreeMap<String, String>],
    run: &BTreeMap<String, String>,
) -> (Vec<(String, String, String)>, usize) {
    let absent = "<none>".to_string();
    let paths: std::collections::BTreeSet<&String> = baselines
        .iter()
        .flat_map(|b| b.keys())
        .chain(run.keys())
        .collect();
    let mut fields = Vec::new();
    let mut unstable = 0;
    for path in paths {
        let value = |m: &BTreeMap<String, String>| m.get(path).unwrap_or(&absent).clone();
        let base = value(&baselines[0]);
        if baselines.iter().any(|b| value(b) != base) {
            unstable += 1;
            continue;
        }
        let ran = value(run);
        if ran != base && fields.len() < FIELDS_SHOWN {
            fields.push((path.clone(), base, ran));
        }
    }
    (fields, unstable)
}

/// An object as its leaves: path (`.metadata.annotations["informer.test/child"]`,
/// `.spec.containers[web].image`) to JSON.
pub fn flat(value: &Value) -> BTreeMap<String, String> {
    fn walk(value: &Value, path: String, out: &mut BTreeMap<String, String>) {
        match value {
            Value::Object(map) if !map.is_empty() => {
                for (k, v) in map {
                    let plain = k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                    let step = match plain {
                        true => format!("{path}.{k}"),
                        false => format!("{path}[{}]", Value::from(k.as_str())),
                    };
                    walk(v, step, out);
                }
            }
            Value::Array(items) if !items.is_empty() => {
                let key = list_key(items);
                for (i, v) in items.iter().enumerate() {
                    let step = match key.and_then(|k| v[k].as_str()) {
                        Some(name) => format!("{path}[{name}]"),
                        None => format!("{path}[{i}]"),
                    };
                    walk(v, step, out);
                }
            }
            leaf => {
                out.insert(path, leaf.to_string());
            }
        }
    }
    let mut out = BTreeMap::new();
    // An object of which the controller owns no field is cut down to `{}`: no field of it to
    // name (that it is there is compared by key).
    if value.as_object().is_some_and(|m| m.is_empty()) {
        return out;
    }
    walk(value, String::new(), &mut out);
    out
}

#[cfg(test)]
#[path = "state/tests.rs"]
mod tests;
