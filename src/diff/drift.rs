//! Drift between an informer's cache and the server, classified object by object: what `diff`
//! reports. Pure: the caller feeds the LIST page by page and the cache's frozen contents.

use crate::informer::fields;
use crate::informer::object::RawObject;
use crate::informer::store::Objects;
use serde::Serialize;

/// The kind of disagreement between cache and server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DriftClass {
    /// In the LIST, not in the cache: a missed ADDED.
    Missing,
    /// In the cache, not in the LIST: a missed DELETED.
    Ghost,
    /// Same uid, the cache's resourceVersion differs from the LIST's: a missed MODIFIED.
    Stale,
    /// Same name, different uid: a missed delete-and-create.
    Recreated,
    /// Same resourceVersion, different content: a bug somewhere.
    Content,
}

impl DriftClass {
    pub const ALL: [DriftClass; 5] = [
        DriftClass::Missing,
        DriftClass::Ghost,
        DriftClass::Stale,
        DriftClass::Recreated,
        DriftClass::Content,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            DriftClass::Missing => "missing",
            DriftClass::Ghost => "ghost",
            DriftClass::Stale => "stale",
            DriftClass::Recreated => "recreated",
            DriftClass::Content => "content",
        }
    }
}

/// One drifted object.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Drift {
    pub class: DriftClass,
    pub namespace: Option<String>,
    pub name: String,
    pub cache_resource_version: Option<String>,
    pub server_resource_version: Option<String>,
    /// The cache's uid, else the server's.
    pub uid: String,
    /// For stale and content: the fields that differ (`--show-fields`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fields: Option<String>,
}

/// How much `classify` says about the fields of a stale or content drift.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldDetail {
    None,
    /// Field paths only (Secrets: values are never shown).
    Paths,
    PathsAndValues,
}

/// Compares a frozen cache with a LIST streamed page by page.
pub struct Comparison {
    /// What the LIST has not shown yet: at the end, the ghosts.
    cache: Objects,
    /// What it has shown (shared, not copied), should it show a key twice.
    shown: Objects,
    detail: FieldDetail,
    drift: Vec<Drift>,
    compared: usize,
}

impl Comparison {
    /// `cache`: the cache's objects by key, frozen at the RV the LIST is taken at.
    pub fn new(cache: Objects, detail: FieldDetail) -> Self {
        Comparison {
            cache,
            shown: Objects::default(),
            detail,
            drift: Vec::new(),
            compared: 0,
        }
    }

    /// Compares one page of the LIST.
    pub fn page(&mut self, items: &[RawObject]) {
        for server in items {
            self.compared += 1;
            let cached = match self.cache.remove_object(server) {
                Some(cached) => {
                    self.shown.insert(cached.clone());
                    Some(cached)
                }
                None => self.shown.get_object(server).cloned(),
            };
            if let Some(d) = classify(cached.as_ref(), Some(server), self.detail) {
                self.drift.push(d);
            }
        }
    }

    /// Ends the comparison: cached keys the LIST never showed are ghosts. Drift is sorted by
    /// class, then key.
    pub fn finish(mut self) -> (usize, Vec<Drift>) {
        let mut ghosts: Vec<&RawObject> = self.cache.iter().collect();
        ghosts.sort_by_cached_key(|o| o.key());
        for cached in ghosts {
            self.compared += 1;
            if let Some(d) = classify(Some(cached), None, self.detail) {
                self.drift.push(d);
            }
        }
        self.drift.sort_by(|a, b| {
            (a.class, &a.namespace, &a.name).cmp(&(b.class, &b.namespace, &b.name))
        });
        (self.compared, self.drift)
    }
}

/// The drift between the cache's and the server's version of one object, if any.
pub fn classify(
    cache: Option<&RawObject>,
    server: Option<&RawObject>,
    detail: FieldDetail,
) -> Option<Drift> {
    let (class, any) = match (cache, server) {
        (None, None) => return None,
        (None, Some(s)) => (DriftClass::Missing, s),
        (Some(c), None) => (DriftClass::Ghost, c),
        (Some(c), Some(s)) if c.uid() != s.uid() => (DriftClass::Recreated, c),
        (Some(c), Some(s)) if c.resource_version() != s.resource_version() => {
            (DriftClass::Stale, c)
        }
        (Some(c), Some(s)) => {
            if same_content(c, s) {
                return None;
            }
            (DriftClass::Content, c)
        }
    };
    let fields = match (class, cache, server) {
        (DriftClass::Stale | DriftClass::Content, Some(c), Some(s))
            if detail != FieldDetail::None =>
        {
            Some(fields::summary(
                c,
                s,
                8,
                detail == FieldDetail::PathsAndValues,
            ))
        }
        _ => None,
    };
    Some(Drift {
        class,
        namespace: any.namespace().map(str::to_string),
        name: any.name().to_string(),
        cache_resource_version: cache.map(|c| c.resource_version().to_string()),
        server_resource_version: server.map(|s| s.resource_version().to_string()),
        uid: any.uid().to_string(),
        fields,
    })
}

/// Same content (see [`RawObject::same_content`]). The cache and the LIST ask for the same
/// encoding; should a server (or a proxy) answer them in two, the contents cannot be compared
/// and the versions, already equal, decide.
fn same_content(a: &RawObject, b: &RawObject) -> bool {
    a.same_content(b).unwrap_or(true)
}

/// Drift counted per class, every class present (zeros included).
pub fn counts(drift: &[Drift]) -> Vec<(DriftClass, usize)> {
    DriftClass::ALL
        .iter()
        .map(|c| (*c, drift.iter().filter(|d| d.class == *c).count()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::value::RawValue;

    fn obj(name: &str, uid: &str, rv: u64, data: &str) -> RawObject {
        let json = serde_json::json!({"kind": "ConfigMap", "apiVersion": "v1",
            "metadata": {"name": name, "namespace": "ns", "uid": uid, "resourceVersion": rv.to_string()},
            "data": {"k": data}});
        RawObject::parse(RawValue::from_string(json.to_string()).unwrap(), None).unwrap()
    }

    #[test]
    fn each_class_is_recognised_and_agreement_is_not_drift() {
        let a = obj("a", "u1", 5, "x");
        assert_eq!(classify(Some(&a), Some(&a), FieldDetail::None), None);
        assert_eq!(
            classify(None, Some(&a), FieldDetail::None).unwrap().class,
            DriftClass::Missing
        );
        assert_eq!(
            classify(Some(&a), None, FieldDetail::None).unwrap().class,
            DriftClass::Ghost
        );
        let newer = obj("a", "u1", 7, "y");
        let stale = classify(Some(&a), Some(&newer), FieldDetail::PathsAndValues).unwrap();
        assert_eq!(stale.class, DriftClass::Stale);
        assert_eq!(stale.cache_resource_version.as_deref(), Some("5"));
        assert_eq!(stale.server_resource_version.as_deref(), Some("7"));
        assert_eq!(stale.fields.as_deref(), Some("data.k x→y"));
        let recreated = obj("a", "u2", 9, "x");
        assert_eq!(
            classify(Some(&a), Some(&recreated), FieldDetail::None)
                .unwrap()
                .class,
            DriftClass::Recreated
        );
        let same_rv_other_content = obj("a", "u1", 5, "z");
        let content = classify(
            Some(&a),
            Some(&same_rv_other_content),
            FieldDetail::PathsAndValues,
        )
        .unwrap();
        assert_eq!(content.class, DriftClass::Content);
        assert_eq!(content.fields.as_deref(), Some("data.k x→z"));
    }

    #[test]
    fn key_order_is_not_content_drift() {
        let a = RawObject::parse(
            RawValue::from_string(r#"{"metadata":{"name":"a","uid":"u","resourceVersion":"1"},"data":{"x":"1","y":"2"}}"#.into()).unwrap(),
            None,
        )
        .unwrap();
        let b = RawObject::parse(
            RawValue::from_string(r#"{"data":{"y":"2","x":"1"},"metadata":{"resourceVersion":"1","uid":"u","name":"a"}}"#.into()).unwrap(),
            None,
        )
        .unwrap();
        assert_eq!(classify(Some(&a), Some(&b), FieldDetail::None), None);
    }

    #[test]
    fn a_comparison_over_pages_finds_ghosts_at_the_end_and_sorts_by_class() {
        let mut cache = Objects::default();
        for o in [
            obj("a", "u1", 1, "x"),
            obj("b", "u2", 2, "x"),
            obj("c", "u3", 3, "x"),
        ] {
            cache.insert(o);
        }
        let mut cmp = Comparison::new(cache, FieldDetail::None);
        cmp.page(&[obj("a", "u1", 1, "x"), obj("d", "u4", 4, "x")]);
        cmp.page(&[obj("c", "u3", 5, "y")]);
        let (compared, drift) = cmp.finish();
        assert_eq!(compared, 4);
        let got: Vec<(DriftClass, &str)> =
            drift.iter().map(|d| (d.class, d.name.as_str())).collect();
        assert_eq!(
            got,
            vec![
                (DriftClass::Missing, "d"),
                (DriftClass::Ghost, "b"),
                (DriftClass::Stale, "c")
            ]
        );
        assert_eq!(counts(&drift)[0], (DriftClass::Missing, 1));
        assert_eq!(counts(&drift)[4], (DriftClass::Content, 0));
    }

    #[test]
    fn a_key_the_list_shows_twice_is_compared_with_the_cache_both_times() {
        let mut cache = Objects::default();
        cache.insert(obj("a", "u1", 1, "x"));
        let mut cmp = Comparison::new(cache, FieldDetail::None);
        cmp.page(&[obj("a", "u1", 1, "x")]);
        cmp.page(&[obj("a", "u1", 1, "x")]);
        let (_, drift) = cmp.finish();
        assert_eq!(drift, vec![], "not missing, not a ghost");
    }
}
