//! Test CRDs: a namespaced CRD served at v1 that takes any fields, created and awaited in the
//! discovery the binary reads (on current and older servers alike), its objects, its removal.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, ApiResource, DeleteParams, DynamicObject, PostParams};
use kubectl_informer::cluster::discovery::ACCEPT;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// GETs `path` with `accept` and parses the body as JSON.
pub async fn get_json(client: &kube::Client, path: &str, accept: &str) -> Value {
    let request = http::Request::get(path)
        .header(http::header::ACCEPT, accept)
        .body(Vec::new())
        .unwrap();
    let text = client.request_text(request).await.unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Creates the namespaced CRD `<plural>.<group>` (served and stored at v1, `short` as its
/// short name) and waits until the server's discovery serves it; returns its name.
pub async fn create(
    client: &kube::Client,
    group: &str,
    plural: &str,
    kind: &str,
    short: &str,
) -> String {
    let any_fields = json!({
        "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}
    });
    create_with(client, group, plural, kind, short, any_fields).await
}

/// As `create`, with `version` (the schema, subresources...) merged into the v1 version.
pub async fn create_with(
    client: &kube::Client,
    group: &str,
    plural: &str,
    kind: &str,
    short: &str,
    version: Value,
) -> String {
    let name = format!("{plural}.{group}");
    let mut v1 = json!({"name": "v1", "served": true, "storage": true});
    for (key, value) in version.as_object().into_iter().flatten() {
        v1[key] = value.clone();
    }
    let crd: CustomResourceDefinition = serde_json::from_value(json!({
        "metadata": {"name": name},
        "spec": {
            "group": group,
            "scope": "Namespaced",
            "names": {"plural": plural, "singular": kind.to_lowercase(), "kind": kind, "shortNames": [short]},
            "versions": [v1]
        }
    }))
    .unwrap();
    Api::<CustomResourceDefinition>::all(client.clone())
        .create(&PostParams::default(), &crd)
        .await
        .expect("create CRD");
    wait_until_discovered(client, group, plural).await;
    name
}

pub async fn delete(client: &kube::Client, name: &str) {
    let _ = Api::<CustomResourceDefinition>::all(client.clone())
        .delete(name, &DeleteParams::default())
        .await;
}

/// The CRD `<plural>.<group>` at v1, for `create_object`.
pub fn custom(group: &str, plural: &str, kind: &str) -> ApiResource {
    ApiResource {
        group: group.into(),
        version: "v1".into(),
        api_version: format!("{group}/v1"),
        kind: kind.into(),
        plural: plural.into(),
    }
}

/// Creates `object` (its `metadata` and any other fields; kind and apiVersion are added) in
/// `namespace`. The CRD's storage can lag its discovery by a moment: retried within 30 s.
pub async fn create_object(
    client: &kube::Client,
    namespace: &str,
    resource: &ApiResource,
    mut object: Value,
) -> DynamicObject {
    object["apiVersion"] = json!(resource.api_version);
    object["kind"] = json!(resource.kind);
    let object: DynamicObject = serde_json::from_value(object).unwrap();
    let api = Api::<DynamicObject>::namespaced_with(client.clone(), namespace, resource);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        match api.create(&PostParams::default(), &object).await {
            Ok(created) => return created,
            Err(e) => assert!(
                Instant::now() < deadline,
                "create {} {:?}: {e}",
                resource.kind,
                object.metadata.name
            ),
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Waits (up to 30 s) until `plural.group` is in the discovery the binary will read: the
/// aggregated document when the server serves one, else the group version's resource list.
pub async fn wait_until_discovered(client: &kube::Client, group: &str, plural: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let root = get_json(client, "/apis", ACCEPT).await;
        let found = if root["kind"] == "APIGroupDiscoveryList" {
            root["items"].as_array().unwrap().iter().any(|g| {
                g["metadata"]["name"] == group
                    && g["versions"][0]["resources"]
                        .as_array()
                        .is_some_and(|rs| rs.iter().any(|r| r["resource"] == plural))
            })
        } else {
            let request = http::Request::get(format!("/apis/{group}/v1"))
                .body(Vec::new())
                .unwrap();
            match client.request_text(request).await {
                Ok(text) => text.contains(&format!("\"name\":\"{plural}\"")),
                Err(_) => false,
            }
        };
        if found {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{plural}.{group} not in discovery after 30s"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
