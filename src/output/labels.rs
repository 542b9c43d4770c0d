//! kubectl's label columns: `-L/--label-columns KEY,...` (a column per key, headed by the key's
//! last `/` segment upper-cased, empty when the object lacks it) and `--show-labels` (a
//! `LABELS` column, `k=v` by sorted key joined by commas, `<none>` when there are none).

use crate::informer::object::RawObject;
use std::collections::BTreeMap;

/// The label columns asked for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LabelColumns {
    /// `-L`'s keys, in the order given.
    pub keys: Vec<String>,
    /// `--show-labels`.
    pub all: bool,
}

impl LabelColumns {
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty() && !self.all
    }

    /// The columns' headers, as kubectl's table names them.
    pub fn headers(&self) -> Vec<String> {
        let mut headers: Vec<String> = self
            .keys
            .iter()
            .map(|k| k.rsplit('/').next().unwrap_or(k).to_uppercase())
            .collect();
        if self.all {
            headers.push("LABELS".into());
        }
        headers
    }

    /// `object`'s cells.
    pub fn cells(&self, object: &RawObject) -> Vec<String> {
        let labels = labels(object);
        let mut cells: Vec<String> = self
            .keys
            .iter()
            .map(|k| labels.get(k).cloned().unwrap_or_default())
            .collect();
        if self.all {
            let all: Vec<String> = labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
            cells.push(match all.is_empty() {
                true => "<none>".into(),
                false => all.join(","),
            });
        }
        cells
    }
}

/// `metadata.labels`, by key; none for an object without JSON.
fn labels(object: &RawObject) -> BTreeMap<String, String> {
    #[derive(serde::Deserialize, Default)]
    struct Metadata {
        #[serde(default)]
        labels: Option<BTreeMap<String, String>>,
    }
    #[derive(serde::Deserialize)]
    struct Labelled {
        #[serde(default)]
        metadata: Metadata,
    }
    object
        .raw()
        .and_then(|raw| serde_json::from_str::<Labelled>(raw.get()).ok())
        .and_then(|o| o.metadata.labels)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::value::RawValue;

    #[test]
    fn keys_head_their_columns_by_their_last_segment_and_labels_are_sorted() {
        let raw = RawValue::from_string(
            r#"{"metadata":{"name":"a","labels":{"tier.example.com/x":"1","app":"web"}}}"#.into(),
        )
        .unwrap();
        let object = RawObject::parse(raw, None).unwrap();
        let columns = LabelColumns {
            keys: vec!["app".into(), "tier.example.com/x".into(), "gone".into()],
            all: true,
        };
        assert_eq!(columns.headers(), ["APP", "X", "GONE", "LABELS"]);
        assert_eq!(
            columns.cells(&object),
            ["web", "1", "", "app=web,tier.example.com/x=1"]
        );
        let bare = RawObject::parse(
            RawValue::from_string(r#"{"metadata":{"name":"b"}}"#.into()).unwrap(),
            None,
        )
        .unwrap();
        assert_eq!(columns.cells(&bare), ["", "", "", "<none>"]);
    }
}
