//! Keys as client-go makes them (`namespace/name`), and an object's owner references.

use serde::Deserialize;

/// One entry of `metadata.ownerReferences`: the object that owns this one.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnerReference {
    #[serde(default)]
    pub api_version: String,
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub name: String,
    pub uid: String,
    /// Whether the owner is the managing controller (at most one owner is).
    #[serde(default)]
    pub controller: Option<bool>,
}

/// client-go's `MetaNamespaceKeyFunc`.
pub fn object_key(namespace: Option<&str>, name: &str) -> String {
    match namespace {
        Some(ns) if !ns.is_empty() => format!("{ns}/{name}"),
        _ => name.to_string(),
    }
}

/// client-go's `SplitMetaNamespaceKey`: `namespace/name` or `name` (names hold no `/`).
pub fn split_key(key: &str) -> (&str, &str) {
    key.split_once('/').unwrap_or(("", key))
}
