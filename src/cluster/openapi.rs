//! Whether a resource's schema has a field, from the server's OpenAPI v3 documents
//! (`/openapi/v3`, served since Kubernetes 1.27): `bench --react observed-generation` checks
//! that the objects can carry `status.observedGeneration` before it writes anything.

use super::{ApiResource, Cluster, ClusterError, Operation};
use serde_json::Value;

/// What the schema says of a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// The schema declares it.
    Declared,
    /// The schema has no such field (and does not keep unknown fields there).
    Absent,
    /// The schema cannot tell: the server serves no OpenAPI v3 document for the group version,
    /// none describes the kind, or the schema keeps unknown fields on the way.
    Unknown,
}

/// Looks `path` (e.g. `["status", "observedGeneration"]`) up in the schema of `resource`'s
/// kind.
pub async fn field(
    cluster: &Cluster,
    resource: &ApiResource,
    path: &[&str],
) -> Result<Field, ClusterError> {
    let op = Operation::new("get", "the OpenAPI v3 schema", None);
    let index = match cluster.get("/openapi/v3", "application/json", &op).await {
        Ok(body) => body,
        Err(e) if e.status_code().is_some() => return Ok(Field::Unknown),
        Err(e) => return Err(e),
    };
    let index: Value = serde_json::from_slice(&index).unwrap_or_default();
    let key = if resource.group.is_empty() {
        format!("api/{}", resource.version)
    } else {
        format!("apis/{}/{}", resource.group, resource.version)
    };
    let Some(url) = index["paths"][&key]["serverRelativeURL"].as_str() else {
        return Ok(Field::Unknown);
    };
    let document = match cluster.get(url, "application/json", &op).await {
        Ok(body) => body,
        Err(e) if e.status_code().is_some() => return Ok(Field::Unknown),
        Err(e) => return Err(e),
    };
    let document: Value = serde_json::from_slice(&document).unwrap_or_default();
    Ok(find(&document, resource, path))
}

/// `path` in the schema of `resource`'s kind in `document` (an OpenAPI v3 document).
fn find(document: &Value, resource: &ApiResource, path: &[&str]) -> Field {
    let Some(schemas) = document["components"]["schemas"].as_object() else {
        return Field::Unknown;
    };
    let is_kind = |schema: &Value| {
        schema["x-kubernetes-group-version-kind"]
            .as_array()
            .is_some_and(|gvks| {
                gvks.iter().any(|g| {
                    g["group"].as_str().unwrap_or_default() == resource.group
                        && g["version"] == resource.version.as_str()
                        && g["kind"] == resource.kind.as_str()
                })
            })
    };
    let Some(mut at) = schemas.values().find(|s| is_kind(s)) else {
        return Field::Unknown;
    };
    for key in path {
        at = resolve(schemas, at, 0);
        match at["properties"].get(*key) {
            Some(next) => at = next,
            None if at["x-kubernetes-preserve-unknown-fields"] == true => return Field::Unknown,
            None => return Field::Absent,
        }
    }
    Field::Declared
}

/// Follows `$ref` and a one-element `allOf` (how Kubernetes' documents point to a type).
fn resolve<'a>(
    schemas: &'a serde_json::Map<String, Value>,
    schema: &'a Value,
    depth: usize,
) -> &'a Value {
    if depth > 16 {
        return schema;
    }
    let reference = schema["$ref"]
        .as_str()
        .or_else(|| schema["allOf"][0]["$ref"].as_str());
    match reference
        .and_then(|r| r.strip_prefix("#/components/schemas/"))
        .and_then(|name| schemas.get(name))
    {
        Some(target) => resolve(schemas, target, depth + 1),
        None => schema,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn deployments() -> ApiResource {
        ApiResource {
            group: "apps".into(),
            version: "v1".into(),
            plural: "deployments".into(),
            singular: "deployment".into(),
            kind: "Deployment".into(),
            short_names: vec![],
            namespaced: true,
            verbs: vec![],
            preferred: true,
        }
    }

    #[test]
    fn a_field_is_found_through_refs_and_all_of_as_kubernetes_documents_write_them() {
        let doc = json!({"components": {"schemas": {
            "io.k8s.api.apps.v1.Deployment": {
                "x-kubernetes-group-version-kind": [{"group": "apps", "version": "v1", "kind": "Deployment"}],
                "properties": {"status": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.apps.v1.DeploymentStatus"}]}}
            },
            "io.k8s.api.apps.v1.DeploymentStatus": {
                "properties": {"observedGeneration": {"type": "integer"},
                    "conditions": {"type": "array"}}
            }
        }}});
        let d = deployments();
        assert_eq!(
            find(&doc, &d, &["status", "observedGeneration"]),
            Field::Declared
        );
        assert_eq!(find(&doc, &d, &["status", "conditions"]), Field::Declared);
        assert_eq!(find(&doc, &d, &["status", "phase"]), Field::Absent);
        assert_eq!(find(&doc, &d, &["spec"]), Field::Absent);
        let other = ApiResource {
            kind: "StatefulSet".into(),
            ..deployments()
        };
        assert_eq!(find(&doc, &other, &["status"]), Field::Unknown);
        assert_eq!(find(&json!({}), &d, &["status"]), Field::Unknown);
    }

    #[test]
    fn a_crd_schema_that_keeps_unknown_fields_cannot_tell() {
        let doc = json!({"components": {"schemas": {
            "com.example.v1.Widget": {
                "x-kubernetes-group-version-kind": [{"group": "apps", "version": "v1", "kind": "Deployment"}],
                "properties": {"status": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}
            }
        }}});
        assert_eq!(
            find(&doc, &deployments(), &["status", "observedGeneration"]),
            Field::Unknown
        );
        assert_eq!(find(&doc, &deployments(), &["spec"]), Field::Absent);
    }
}
